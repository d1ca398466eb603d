"""A user message's media as the model's content parts (Chat Completions and Responses).

An image is image content: ``image_url`` (Chat Completions) or ``input_image``
(Responses), as a ``data:`` URL of its bytes or the URL it was given by. A file is
text: its own text when it is text (plain, Markdown, CSV, JSON, …) or a PDF's
extracted text (``pypdf``), set in a ``<file>`` block after the message's text, so any
OpenAI-compatible server (Ollama, vLLM, …) reads it; a file of any other type is
refused with a ValueError naming it (:func:`file_text`). A file's text is cut to
:data:`MAX_FILE_CHARS` characters, the cut said in the text.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from core.media import File, Image

__all__ = [
    "MAX_FILE_CHARS",
    "TEXT_TYPES",
    "chat_parts",
    "file_text",
    "is_text_type",
    "responses_parts",
]

#: characters of one file's text given to the model
MAX_FILE_CHARS = 100_000
#: types read as text besides ``text/*``
TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/x-ndjson",
        "application/xml",
        "application/x-yaml",
        "application/yaml",
        "application/csv",
    }
)
PDF = "application/pdf"


def is_text_type(media_type: str) -> bool:
    """True for the types whose bytes are given to the model as their own text."""
    base = media_type.split(";", 1)[0].strip().lower()
    return base.startswith("text/") or base in TEXT_TYPES or base.endswith("+json")


def file_text(file: File) -> str:
    """The text of ``file`` for the model; ValueError naming it when it has none."""
    if isinstance(file.content, str):
        return _bounded(file.content)
    kind = file.media_type()
    if file.content is None and file.filepath is None:
        raise ValueError(
            f"file {file.display_name()!r} is given by URL only; pass its content or filepath"
        )
    data = file.get_content_bytes() or b""
    if is_text_type(kind):
        return _bounded(data.decode("utf-8", errors="replace"))
    if kind == PDF:
        return _bounded(pdf_text(data, file.display_name()))
    raise ValueError(f"file {file.display_name()!r} is {kind}, which cannot be read as text")


def pdf_text(data: bytes, name: str) -> str:
    """A PDF's text, page by page; ValueError when it cannot be read."""
    from pypdf import PdfReader  # imported on first use: most runs have no PDF
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ValueError(f"file {name!r} is an encrypted PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PyPdfError, OSError, KeyError, TypeError) as exc:
        raise ValueError(f"file {name!r} is not a readable PDF ({type(exc).__name__})") from None
    return "\n\n".join(text.strip() for text in pages if text.strip())


def _bounded(text: str) -> str:
    if len(text) <= MAX_FILE_CHARS:
        return text
    more = len(text) - MAX_FILE_CHARS
    return f"{text[:MAX_FILE_CHARS]}\n[… cut: {more:,} more characters not shown]"


def _file_block(file: File) -> str:
    name = json.dumps(file.display_name(), ensure_ascii=False)
    kind = json.dumps(file.media_type())
    return f"<file name={name} type={kind}>\n{file_text(file)}\n</file>"


def chat_parts(
    text: str | None, images: Sequence[Image], files: Sequence[File]
) -> list[dict[str, Any]]:
    """Chat Completions content parts: the text (files' text after it), then the images."""
    blocks = [text or "", *(_file_block(f) for f in files)]
    parts: list[dict[str, Any]] = [{"type": "text", "text": "\n\n".join(b for b in blocks if b)}]
    for image in images:
        url: dict[str, Any] = {"url": image.data_url()}
        if image.detail:
            url["detail"] = image.detail
        parts.append({"type": "image_url", "image_url": url})
    return parts


def responses_parts(
    text: str | None, images: Sequence[Image], files: Sequence[File]
) -> list[dict[str, Any]]:
    """Responses content parts: ``input_text`` (files' text after it), ``input_image``s."""
    blocks = [text or "", *(_file_block(f) for f in files)]
    parts: list[dict[str, Any]] = [
        {"type": "input_text", "text": "\n\n".join(b for b in blocks if b)}
    ]
    for image in images:
        parts.append(
            {"type": "input_image", "image_url": image.data_url(), "detail": image.detail or "auto"}
        )
    return parts
