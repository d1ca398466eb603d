"""Media a run takes in or a tool gives back: ``Image`` and ``File`` (Agno's ``agno.media``).

    agent.run("What is on this receipt?", images=[Image(filepath="receipt.png")])
    agent.run("Sum the second column", files=[File(content=csv_bytes, mime_type="text/csv")])

Each holds exactly one source: ``url`` (sent to the model as a link), ``filepath``
(read when the model call is built) or ``content`` (bytes; a ``File``'s may be text).
``id`` is generated when not given; a chat adapter puts the platform's file id there.

What reaches the model (:mod:`core.models.content`): an image as image content; a
file as text, its own text when it is text (plain, Markdown, CSV, JSON, …), a PDF's
extracted text (``pypdf``). Nothing else is sent.

What is stored: never the bytes. A run's history entry keeps :meth:`Image.reference` /
:meth:`File.reference` of each input (kind, name, type, size, id), so a session's
record stays small and a later run's context says what was attached.
"""

from __future__ import annotations

import base64
import mimetypes
import uuid
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, model_validator

__all__ = ["File", "Image", "media_reference"]

_SOURCES = ("url", "filepath", "content")


def _one_source(data: Any, kind: str) -> Any:
    """Exactly one of url / filepath / content; an id when none is given."""
    if isinstance(data, dict):
        given = [name for name in _SOURCES if data.get(name) is not None]
        if len(given) != 1:
            raise ValueError(
                f"{kind} takes exactly one of url, filepath or content (given: "
                f"{', '.join(given) or 'none'})"
            )
        if data.get("id") is None:
            data = {**data, "id": uuid.uuid4().hex}
    return data


class _Media(BaseModel):
    """What Image and File share: the source, the id, the type, and the reference."""

    url: str | None = None
    filepath: Path | str | None = None
    id: str | None = None
    mime_type: str | None = None
    format: str | None = None

    def get_content_bytes(self) -> bytes | None:
        """The bytes: ``content``, or the file at ``filepath``; None for a URL."""
        content = getattr(self, "content", None)
        if isinstance(content, bytes):
            return content
        if isinstance(content, str):
            return content.encode()
        if self.filepath is not None:
            return Path(self.filepath).read_bytes()
        return None

    def to_base64(self) -> str | None:
        """The bytes as base64 text (None for a URL)."""
        data = self.get_content_bytes()
        return None if data is None else base64.b64encode(data).decode("ascii")

    def display_name(self) -> str:
        """A name to show: the given one, else the path's or URL's last part, else the id."""
        named = getattr(self, "name", None) or getattr(self, "filename", None)
        if named:
            return str(named)
        for where in (self.filepath, self.url):
            if where:
                last = PurePosixPath(str(where).split("?", 1)[0]).name
                if last:
                    return last
        return str(self.id or "unnamed")

    def media_type(self) -> str:
        """The MIME type: given, else from the format or the name, else octet-stream."""
        if self.mime_type:
            return self.mime_type
        guessed = mimetypes.guess_type(f"x.{self.format}")[0] if self.format else None
        guessed = guessed or mimetypes.guess_type(self.display_name())[0]
        return guessed or "application/octet-stream"

    def byte_size(self) -> int | None:
        """Bytes held (or the size a File declares), None when not known."""
        declared = getattr(self, "size", None)
        if isinstance(declared, int):
            return declared
        content = getattr(self, "content", None)
        if isinstance(content, bytes):
            return len(content)
        if isinstance(content, str):
            return len(content.encode())
        if self.filepath is not None:
            try:
                return Path(self.filepath).stat().st_size
            except OSError:
                return None
        return None

    def reference(self) -> dict[str, Any]:
        """What a run's history keeps of this input: never the bytes."""
        ref: dict[str, Any] = {
            "kind": "image" if isinstance(self, Image) else "file",
            "name": self.display_name(),
            "type": self.media_type(),
        }
        size = self.byte_size()
        if size is not None:
            ref["size"] = size
        if self.id:
            ref["id"] = self.id
        return ref


class Image(_Media):
    """An image in (to the model) or out (from a tool).

    ``detail`` is OpenAI's fidelity hint ("low", "high", "auto"); ``name`` is not
    Agno's: the file name a chat user gave it, shown in the history.
    """

    content: bytes | None = None
    detail: str | None = None
    alt_text: str | None = None
    name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _check_source(cls, data: Any) -> Any:
        return _one_source(data, "Image")

    def data_url(self) -> str:
        """``data:<type>;base64,…`` for the bytes, or the URL as given."""
        if self.url is not None:
            return self.url
        encoded = self.to_base64() or ""
        return f"data:{self.media_type()};base64,{encoded}"

    def to_dict(self, include_base64_content: bool = True) -> dict[str, Any]:
        """Plain data (Agno's shape); the bytes as base64 only when asked."""
        out = {
            "id": self.id,
            "url": self.url,
            "filepath": str(self.filepath) if self.filepath else None,
            "format": self.format,
            "mime_type": self.mime_type,
            "detail": self.detail,
            "alt_text": self.alt_text,
            "name": self.name,
        }
        if include_base64_content and self.content:
            out["content"] = self.to_base64()
        return {k: v for k, v in out.items() if v is not None}


class File(_Media):
    """A document in (its text to the model) or out (from a tool).

    ``content`` is bytes or text; ``filename`` / ``name`` name it (Agno has both);
    ``size`` is the size the platform declared, when known before the bytes.
    """

    content: bytes | str | None = None
    filename: str | None = None
    name: str | None = None
    size: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _check_source(cls, data: Any) -> Any:
        return _one_source(data, "File")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (Agno's shape): text content as text, bytes as base64."""
        content: str | None = None
        if isinstance(self.content, str):
            content = self.content
        elif self.content is not None:
            content = self.to_base64()
        out = {
            "id": self.id,
            "url": self.url,
            "filepath": str(self.filepath) if self.filepath else None,
            "content": content,
            "mime_type": self.mime_type,
            "filename": self.filename,
            "name": self.name,
            "format": self.format,
        }
        return {k: v for k, v in out.items() if v is not None}


def media_reference(item: object) -> dict[str, Any]:
    """The history reference of an Image or File (anything else: its type name)."""
    if isinstance(item, _Media):
        return item.reference()
    return {"kind": type(item).__name__}
