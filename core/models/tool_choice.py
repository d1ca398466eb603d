"""Agno's ``tool_choice``: which tool the model must (or must not) call.

The agent loop sets it around each model call (:func:`choosing`); the OpenAI
adapters read it and send it, with tools only, in their API's own shape: Chat
Completions nests a forced function's name (``{"type": "function", "function":
{"name": ...}}``), the Responses API does not (``{"type": "function", "name": ...}``).
Either shape is accepted from the caller.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

ToolChoice = str | dict[str, Any]
NAMED = ("none", "auto", "required")

_CHOICE: ContextVar[ToolChoice | None] = ContextVar("tool_choice", default=None)


def function_name(choice: ToolChoice) -> str | None:
    """The forced function's name (either shape), None for a named choice."""
    if isinstance(choice, str):
        return None
    inner = choice.get("function")
    name = inner.get("name") if isinstance(inner, dict) else choice.get("name")
    return name if isinstance(name, str) else None


def check_tool_choice(choice: ToolChoice | None) -> None:
    """Raise ValueError for a choice neither API accepts."""
    if choice is None or (isinstance(choice, str) and choice in NAMED):
        return
    if isinstance(choice, dict) and choice.get("type") == "function" and function_name(choice):
        return
    raise ValueError(
        f"tool_choice must be one of {', '.join(NAMED)} or "
        f'{{"type": "function", "name": ...}}, not {choice!r}'
    )


@contextmanager
def choosing(choice: ToolChoice | None) -> Iterator[None]:
    """Within: model calls carry ``choice`` (None: the model decides, nothing sent)."""
    token = _CHOICE.set(choice)
    try:
        yield
    finally:
        _CHOICE.reset(token)


def chat_tool_choice() -> ToolChoice | None:
    """The current choice in Chat Completions' shape."""
    choice = _CHOICE.get()
    if choice is None or isinstance(choice, str):
        return choice
    return {"type": "function", "function": {"name": function_name(choice)}}


def responses_tool_choice() -> ToolChoice | None:
    """The current choice in the Responses API's shape."""
    choice = _CHOICE.get()
    if choice is None or isinstance(choice, str):
        return choice
    return {"type": "function", "name": function_name(choice)}
