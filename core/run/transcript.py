"""A run's messages as stored with its history entry, and their bound.

Agno keeps every message of a run on its stored ``RunOutput``. Here a run keeps its
messages too (``RunRecord.transcript``), so ``get_last_run_output().messages`` and
``AgentSession.get_messages()`` work from any process, but within a bound, so one
long tool loop can never take the room of the whole history:

* a run's own messages without its system message (rebuilt each run from the state:
  kept, it would copy the state into the history, where the state's own rules —
  erasure's exact-id rule — cannot reach it); a session object a program saves keeps
  the messages it holds;
* at most :data:`MAX_RUN_MESSAGES` messages per run: the first two and the newest
  ones, the middle of a longer tool loop dropped;
* each message's text cut to :data:`MESSAGE_CHARS` characters (a tool result to
  ``RESULT_CHARS``, as in the tool-call records), tool-call arguments likewise.

The session's data keeps its own byte bound on top (``StateLimits.run_bytes``, oldest
runs dropped first), and a transcript is part of its run: exported, erased (a user's
runs leave with their messages) and encrypted with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core.models.base import Message, ToolCall

__all__ = [
    "MAX_RUN_MESSAGES",
    "MESSAGE_CHARS",
    "RESULT_CHARS",
    "cut",
    "message_from_dict",
    "message_to_dict",
    "transcript_of",
]

#: characters of a tool's result kept in the history
RESULT_CHARS = 500
#: characters of any other message's text kept in a run's transcript
MESSAGE_CHARS = 4000
#: messages kept per run in its transcript
MAX_RUN_MESSAGES = 40


def message_to_dict(message: Message) -> dict[str, Any]:
    """A message as plain JSON (paused runs store the run's messages so far)."""
    return {
        "role": message.role,
        "content": message.content,
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": c.arguments}
            for c in (_tool_call(c) if isinstance(c, Mapping) else c for c in message.tool_calls)
        ],
        "tool_call_id": message.tool_call_id,
        "name": message.name,
        # only when set: a run's own messages (the usual case) stay as small as before
        **({"from_history": True} if message.from_history else {}),
    }


def message_from_dict(data: Mapping[str, Any]) -> Message:
    """The inverse of :func:`message_to_dict` (Agno's ``{"role", "content"}`` dicts too)."""
    return Message(
        str(data["role"]),
        data.get("content"),
        [_tool_call(c) for c in data.get("tool_calls") or ()],
        tool_call_id=data.get("tool_call_id"),
        name=data.get("name"),
        from_history=bool(data.get("from_history")),
    )


def _tool_call(data: Mapping[str, Any]) -> ToolCall:
    function = data.get("function")  # the Chat Completions shape, as Agno stores it
    if isinstance(function, Mapping):
        return ToolCall(
            str(data.get("id", "")),
            str(function.get("name", "")),
            str(function.get("arguments", "")),
        )
    return ToolCall(
        str(data.get("id", "")), str(data.get("name", "")), str(data.get("arguments", ""))
    )


def transcript_of(messages: Iterable[Message | Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """A run's messages as stored: within :data:`MAX_RUN_MESSAGES`, texts cut short."""
    stored = [
        message_to_dict(m if isinstance(m, Message) else message_from_dict(m)) for m in messages
    ]
    if len(stored) > MAX_RUN_MESSAGES:
        stored = stored[:2] + stored[-(MAX_RUN_MESSAGES - 2) :]
    return tuple(_bounded(m) for m in stored)


def _bounded(message: dict[str, Any]) -> dict[str, Any]:
    limit = RESULT_CHARS if message["role"] == "tool" else MESSAGE_CHARS
    content = message["content"]
    if isinstance(content, str):
        message["content"] = cut(content, limit)
    for call in message["tool_calls"]:
        call["arguments"] = cut(call["arguments"], MESSAGE_CHARS)
    return message


def cut(text: str | None, limit: int = RESULT_CHARS) -> str | None:
    """``text`` within ``limit`` characters, an ellipsis marking a cut."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
