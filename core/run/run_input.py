"""What was passed to a run, exactly as given (Agno's ``RunInput``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.models.base import Message

__all__ = ["RunInput"]


@dataclass(slots=True)
class RunInput:
    """The run's raw input, kept apart from the messages built from it."""

    input_content: Any
    images: Sequence[Any] | None = None
    videos: Sequence[Any] | None = None
    audios: Sequence[Any] | None = None
    files: Sequence[Any] | None = None

    def input_content_string(self) -> str:
        """The input as text: a string as is, anything else as JSON where it can be."""
        content = self.input_content
        if isinstance(content, str):
            return content
        if isinstance(content, Message):
            return json.dumps(content.to_openai(), ensure_ascii=False)
        if hasattr(content, "model_dump_json"):  # a pydantic model
            return str(content.model_dump_json(exclude_none=True))
        try:
            return json.dumps(content, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(content)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (media are listed by their own ``to_dict`` where they have one)."""
        out: dict[str, Any] = {"input_content": self.input_content_string()}
        for name in ("images", "videos", "audios", "files"):
            media = getattr(self, name)
            if media:
                out[name] = [m.to_dict() if hasattr(m, "to_dict") else str(m) for m in media]
        return out
