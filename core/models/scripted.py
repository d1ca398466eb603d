"""ScriptedModel: a model that plays scripted turns, for tests and offline demos.

    model = ScriptedModel([
        tool_call("add_item", item="milk"),              # turn 1: one tool call
        [tool_call("add_item", item="eggs"),             # turn 2: parallel tool calls
         tool_call("add_item", item="bread")],
        "Added milk, eggs and bread.",                   # turn 3: final answer
    ])

A turn may also be a callable ``(messages, tools) -> turn`` that decides from what the
model was sent. Every request is recorded in ``model.requests`` so tests can inspect
the system message and tool schemas the runtime produced.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.exceptions import ScriptExhaustedError as ScriptExhaustedError
from core.models.base import Message, Model, ModelResponse, ToolCall

_ids = itertools.count(1)


def tool_call(name: str, /, _raw_arguments: str | None = None, **arguments: Any) -> ToolCall:
    """A scripted tool call; ``_raw_arguments`` sends exact (even invalid) JSON text."""
    raw = _raw_arguments if _raw_arguments is not None else json.dumps(arguments)
    return ToolCall(id=f"call_{next(_ids)}", name=name, arguments=raw)


Turn = str | ToolCall | Sequence[ToolCall] | ModelResponse | BaseException
TurnFactory = Callable[[list[Message], list[dict[str, Any]]], Turn]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What the runtime sent on one model call."""

    messages: list[Message]
    tools: list[dict[str, Any]]
    #: the structured-output format asked for (None: plain text)
    response_format: dict[str, Any] | None = None

    @property
    def system(self) -> str:
        """The system message text ('' when there is none)."""
        return next((m.content or "" for m in self.messages if m.role == "system"), "")


class ScriptedModel(Model):
    """Plays its turns in order; raising a scripted exception simulates a model failure."""

    def __init__(self, turns: Sequence[Turn | TurnFactory] = (), *, id: str = "scripted") -> None:
        self.id = id
        self._turns = list(turns)
        self._next = 0
        self.requests: list[ModelRequest] = []

    def extend(self, turns: Sequence[Turn | TurnFactory]) -> None:
        """Append more turns to the script."""
        self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        """Turns not yet played."""
        return len(self._turns) - self._next

    #: records ``response_format`` in its requests (its script holds the JSON reply)
    supports_response_format = True

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        return await self._play(messages, tools, None)

    async def ainvoke_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any],
    ) -> ModelResponse:
        """A scripted turn, with the format asked for recorded in the request."""
        return await self._play(messages, tools, response_format)

    async def astream_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any],
    ) -> AsyncIterator[str | ModelResponse]:
        """The structured turn streamed as one chunk, then whole (like ``astream``)."""
        response = await self.ainvoke_structured(messages, tools, response_format)
        if response.content:
            yield response.content
        yield response

    async def _play(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None,
    ) -> ModelResponse:
        self.requests.append(ModelRequest(list(messages), list(tools), response_format))
        if self._next >= len(self._turns):
            raise ScriptExhaustedError(
                f"ScriptedModel {self.id!r} has no turn left (played {self._next})"
            )
        turn = self._turns[self._next]
        self._next += 1
        if callable(turn) and not isinstance(turn, BaseException):
            turn = turn(list(messages), list(tools))
        return _as_response(turn)


def _as_response(turn: Turn) -> ModelResponse:
    if isinstance(turn, BaseException):
        raise turn
    if isinstance(turn, ModelResponse):
        return turn
    if isinstance(turn, str):
        return ModelResponse(content=turn)
    if isinstance(turn, ToolCall):
        return ModelResponse(tool_calls=(turn,))
    return ModelResponse(tool_calls=tuple(turn))
