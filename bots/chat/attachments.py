"""Files and images people attach: which are used, downloaded within bounds, for the run.

The adapter lists a message's attachments (``InboundMessage.attachments``) and gives
a :data:`Fetch` that downloads one with the platform's credentials (Slack: the bot
token on ``url_private``). Here, once for every platform:

1. at most ``STATEBOT_MAX_FILES`` attachments are used, in the platform's order;
2. each must be a type the model can use: an image (PNG, JPEG, GIF, WebP) or a
   document read as text (plain text, Markdown, CSV, JSON, … and PDF);
3. each must be at most ``STATEBOT_MAX_FILE_BYTES``: refused on the size the platform
   declared, before any download, and again while downloading (:func:`read_bounded`
   stops within one 64 KB chunk past the bound, so a wrong declaration costs no more);
4. a document is read as text here (a PDF through ``pypdf``), so an unreadable one is
   refused before the run, not by it.

What is not used gets one line in the reply saying which and why
(:meth:`Received.note`); the message's text runs either way.
"""

from __future__ import annotations

import asyncio
import mimetypes
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import aiohttp
import structlog

from bots.inbound import Attachment
from core.media import File, Image
from core.models.content import PDF, file_text, is_text_type

__all__ = [
    "IMAGE_TYPES",
    "Fetch",
    "FetchError",
    "Received",
    "TooLarge",
    "media_type",
    "read_bounded",
    "receive",
]

log = structlog.get_logger(__name__)

#: image types vision models take (OpenAI's list)
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_CHUNK = 64 * 1024
#: what a refusal says the bot reads
READABLE = "images (PNG, JPEG, GIF, WebP), text, Markdown, CSV, JSON and PDF"


class TooLarge(Exception):
    """The download passed the byte bound (the platform declared less, or nothing)."""


class FetchError(Exception):
    """A download failed; the message is the one-line reason shown to the user."""


#: downloads one attachment, bounded by ``limit`` bytes: raises TooLarge past it,
#: FetchError (a short reason) when the platform will not give it
Fetch = Callable[[Attachment, int], Awaitable[bytes]]


@dataclass(frozen=True, slots=True)
class Received:
    """What a message's attachments gave the run, and what was refused (with why)."""

    images: tuple[Image, ...] = ()
    files: tuple[File, ...] = ()
    refused: tuple[str, ...] = ()

    def note(self) -> str | None:
        """One line naming each refused attachment and why (None: all used)."""
        if not self.refused:
            return None
        count = len(self.refused)
        head = (
            "I could not use 1 attachment" if count == 1 else f"I could not use {count} attachments"
        )
        return f"{head}: {'; '.join(self.refused)}."


#: why an attachment was not used where the front end cannot download it
UNREAD = "(attachments are not read here)"


async def read_bounded(response: aiohttp.ClientResponse, limit: int) -> bytes:
    """A download's body, read in chunks and refused (TooLarge) once past ``limit`` bytes:
    what the adapters' fetches use, so a file's declared size need not be trusted."""
    declared = response.content_length
    if declared is not None and declared > limit:
        raise TooLarge
    body = bytearray()
    async for chunk in response.content.iter_chunked(_CHUNK):
        body += chunk
        if len(body) > limit:
            raise TooLarge
    return bytes(body)


def media_type(attachment: Attachment) -> str:
    """The attachment's MIME type: the platform's, else guessed from its name."""
    given = attachment.media_type.split(";", 1)[0].strip().lower()
    if given and given != "application/octet-stream":
        return given
    return mimetypes.guess_type(attachment.name)[0] or given or "application/octet-stream"


def _megabytes(size: int) -> str:
    """A size for people: bytes, KB or MB (binary units, as the limit is set)."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _unusable(kind: str) -> bool:
    return kind not in IMAGE_TYPES and kind != PDF and not is_text_type(kind)


async def receive(
    attachments: Sequence[Attachment],
    fetch: Fetch | None,
    *,
    max_bytes: int,
    max_files: int,
) -> Received:
    """Download the usable attachments (in parallel) and say why the others are not used;
    without ``fetch`` (a front end that cannot download) none is, and the reply says so."""
    if fetch is None:
        return Received(refused=tuple(f"`{a.name}` {UNREAD}" for a in attachments))
    refused: list[str] = []
    wanted: list[tuple[Attachment, str]] = []
    for index, attachment in enumerate(attachments):
        kind = media_type(attachment)
        name = f"`{attachment.name}`"
        if index >= max_files:
            refused.append(f"{name} (only {max_files} per message)")
        elif not attachment.url:  # the platform listed it but gave no way to fetch it
            refused.append(f"{name} (no download link was given for it)")
        elif _unusable(kind):
            refused.append(f"{name} ({kind} is not a type I read; I read {READABLE})")
        elif attachment.size is not None and attachment.size > max_bytes:
            limit = _megabytes(max_bytes)
            refused.append(f"{name} ({_megabytes(attachment.size)}; the limit is {limit})")
        else:
            wanted.append((attachment, kind))
    outcomes = await asyncio.gather(*(_one(a, k, fetch, max_bytes) for a, k in wanted))
    images: list[Image] = []
    files: list[File] = []
    for item in outcomes:
        if isinstance(item, str):
            refused.append(item)
        elif isinstance(item, Image):
            images.append(item)
        else:
            files.append(item)
    return Received(tuple(images), tuple(files), tuple(refused))


async def _one(
    attachment: Attachment, kind: str, fetch: Fetch, max_bytes: int
) -> Image | File | str:
    """The downloaded Image or File (a document as its text), or the refusal line."""
    name = f"`{attachment.name}`"
    try:
        data = await fetch(attachment, max_bytes)
    except TooLarge:
        return f"{name} (larger than the limit of {_megabytes(max_bytes)})"
    except FetchError as exc:
        log.warning("attachment_fetch_failed", file_id=attachment.platform_id, error=str(exc))
        return f"{name} (could not download it: {exc})"
    if len(data) > max_bytes:  # a fetch that did not bound itself
        return f"{name} (larger than the limit of {_megabytes(max_bytes)})"
    common = {"id": attachment.platform_id, "mime_type": kind, "name": attachment.name}
    if kind in IMAGE_TYPES:
        return Image(content=data, **common)
    document = File(content=data, size=len(data), **common)
    try:  # read now: an unreadable PDF is refused here, with why
        text = await asyncio.to_thread(file_text, document)
    except ValueError as exc:  # "file 'a.pdf' is not a readable PDF (…)"
        return f"{name} (it {str(exc).removeprefix(f'file {attachment.name!r} ')})"
    return document.model_copy(update={"content": text})
