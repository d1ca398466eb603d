"""ToolResult: a tool's answer with media (Agno's ``agno.tools.function.ToolResult``).

    @tool
    def chart(month: str) -> ToolResult:
        png = render(month)
        return ToolResult(content=f"Chart of {month} attached.", images=[Image(content=png)])

``content`` is what the model reads; ``images`` and ``files`` are not shown to the
model: the run collects them on ``RunOutput.images`` / ``RunOutput.files`` in call
order, and a chat front end posts them into the conversation (docs/files.md). The
run's history keeps the content only (cut like every tool result), never the media.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from core.media import File, Image

__all__ = ["ToolResult"]


class ToolResult(BaseModel):
    """A tool's result: text for the model, media for the person."""

    content: str
    #: extra data a provider sends with a result (an MCP tool's ``meta``), kept as given
    metadata: dict[str, Any] | None = None
    images: list[Image] | None = None
    files: list[File] | None = None
