"""A scripted model that streams its answers word by word, and a clock tests move."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from core.models.base import Message, ModelResponse
from core.testing import ScriptedModel


class WordStreamingModel(ScriptedModel):
    """ScriptedModel whose text answers arrive one word (with its spacing) per chunk."""

    async def astream(
        self, messages: list[Message], tools: list[dict[str, Any]]
    ) -> AsyncIterator[str | ModelResponse]:
        """Each word of the turn's text, then the whole turn."""
        response = await self.ainvoke(messages, tools)
        for word in re.findall(r"\S+\s*", response.content or ""):
            yield word
        yield response


class TickingClock:
    """A monotonic clock that moves ``step`` seconds each time it is read."""

    __slots__ = ("now", "reads", "step")

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0
        self.reads: list[float] = []

    def __call__(self) -> float:
        """The current time; then time moves on by one step."""
        value = self.now
        self.reads.append(value)
        self.now += self.step
        return value
