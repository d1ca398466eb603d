"""The model seam: one async method a model must implement, one for streaming.

Messages and tool calls use the Chat Completions shapes, so a model adapter mostly
forwards them. ``ToolCall.arguments`` is the raw JSON text the model produced: the
runtime parses and validates it, and reports bad JSON back to the model.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from core.exceptions import ModelError as ModelError  # re-exported: importers use this path
from core.exceptions import ModelTimeoutError as ModelTimeoutError
from core.models.message import Message as Message  # defined at Agno's path
from core.models.message import ToolCall as ToolCall


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one model call."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """A whole model turn: text, tool calls, or both."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()


class Model(abc.ABC):
    """A chat model. ``tools`` are Chat Completions tool schemas."""

    id: str = "model"
    #: takes a Chat Completions ``response_format`` (structured output, Agno's
    #: ``output_schema``); models that do not are told the schema in the system message
    supports_response_format: bool = False

    @abc.abstractmethod
    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        """One model turn."""

    async def astream(
        self, messages: list[Message], tools: list[dict[str, Any]]
    ) -> AsyncIterator[str | ModelResponse]:
        """Text chunks as they arrive, then the whole turn as a ModelResponse.

        The default streams the whole answer as one chunk; adapters override it.
        """
        response = await self.ainvoke(messages, tools)
        if response.content:
            yield response.content
        yield response

    async def ainvoke_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any],
    ) -> ModelResponse:
        """One model turn asked to answer in ``response_format``.

        The default ignores the format: it is used only by models whose
        ``supports_response_format`` is False, which get the schema as text instead.
        """
        return await self.ainvoke(messages, tools)

    def astream_structured(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any],
    ) -> AsyncIterator[str | ModelResponse]:
        """:meth:`astream` asked to answer in ``response_format`` (see ainvoke_structured)."""
        return self.astream(messages, tools)
