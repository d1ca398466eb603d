"""What was passed to a run, exactly as given (Agno's ``RunInput``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.media import File, Image, media_reference
from core.models.base import Message
from core.models.content import file_text

__all__ = ["RunInput", "RunMedia"]


@dataclass(frozen=True, slots=True)
class RunMedia:
    """The images and files a run was given (``images=`` / ``files=``), files as text.

    Built before the run opens its session (:meth:`of`), so a file that cannot be read
    refuses the run with a ValueError naming it and nothing is stored.
    """

    images: tuple[Image, ...] = ()
    files: tuple[File, ...] = ()

    @classmethod
    def of(cls, images: Sequence[Any] | None, files: Sequence[Any] | None) -> RunMedia:
        """Checked media: Images and Files only; each file read as text once, here."""
        for item in images or ():
            if not isinstance(item, Image):
                raise TypeError(f"images= takes core.media.Image, not {type(item).__name__}")
        texts = []
        for item in files or ():
            if not isinstance(item, File):
                raise TypeError(f"files= takes core.media.File, not {type(item).__name__}")
            text = file_text(item)  # ValueError: refused before the session opens
            ref = item.reference()
            texts.append(
                item.model_copy(
                    update={
                        "content": text,
                        "filepath": None,
                        "url": None,
                        "mime_type": ref["type"],
                        "size": ref.get("size"),
                        "name": item.name or ref["name"],
                    }
                )
            )
        return cls(tuple(images or ()), tuple(texts))

    def __bool__(self) -> bool:
        return bool(self.images or self.files)

    def references(self) -> tuple[dict[str, Any], ...]:
        """What the run's history keeps: kind, name, type, size and id of each, no bytes."""
        return tuple(media_reference(m) for m in (*self.images, *self.files))


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
