"""Files in the console: ``/attach`` gives local files to the model; a tool's files are saved.

    /attach receipt.png -- what is the total?
    /attach "march report.pdf" notes.md -- compare these
    /attach chart.png                      (no text: the model is told what is attached)

Paths are read shell-style (quote one with spaces; ``~`` is expanded), relative to the
directory the console was started in; ``--`` ends them and the message follows. Each
file goes through the same rules as a chat attachment (``bots.chat.attachments``:
types, ``STATEBOT_MAX_FILE_BYTES``, ``STATEBOT_MAX_FILES``), read from disk within the
bound. An image or file a tool returns is saved under :data:`FILES_DIR` (created when
first needed; a name already taken gets ``-2``, ``-3`` …) and its path printed.
"""

from __future__ import annotations

import asyncio
import itertools
import mimetypes
import shlex
from collections.abc import Sequence
from pathlib import Path

from bots.chat.attachments import FetchError, TooLarge
from bots.chat.replies import media_bytes
from bots.inbound import Attachment
from core.media import File, Image

__all__ = [
    "ATTACH_USAGE",
    "FILES_DIR",
    "attachment_of",
    "console_fetch",
    "parse_attach",
    "save_media",
]

ATTACH_USAGE = (
    "usage: /attach PATH [PATH …] [-- your message]  (quote a path with spaces, "
    'e.g. /attach "my notes.md" -- summarise this)'
)
#: where the console saves the files tools return (relative to the working directory)
FILES_DIR = Path("statebot-files")


def parse_attach(rest: str) -> tuple[list[str], str]:
    """(paths, message text) of an ``/attach`` line; ValueError with the usage when bad."""
    head, _, text = f" {rest.strip()} ".partition(" -- ")
    try:
        paths = shlex.split(head)
    except ValueError as exc:  # an unclosed quote
        raise ValueError(f"{exc}; {ATTACH_USAGE}") from None
    if not paths:
        raise ValueError(ATTACH_USAGE)
    return paths, text.strip()


def attachment_of(path: str) -> Attachment:
    """A local file as the neutral record (its size from the disk; None when missing)."""
    where = Path(path).expanduser()
    try:
        size: int | None = where.stat().st_size
    except OSError:
        size = None
    kind = mimetypes.guess_type(where.name)[0] or ""
    return Attachment(where.name, kind, size, platform_id=str(where), url=str(where))


def _read(where: Path, limit: int) -> bytes:
    with where.open("rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge
    return data


async def console_fetch(attachment: Attachment, limit: int) -> bytes:
    """Read the file at ``attachment.url`` within ``limit`` bytes (on a worker thread)."""
    where = Path(attachment.url)
    try:
        return await asyncio.to_thread(_read, where, limit)
    except FileNotFoundError:
        raise FetchError(f"there is no file {str(where)!r}") from None
    except IsADirectoryError:
        raise FetchError("it is a directory") from None
    except OSError as exc:
        raise FetchError(exc.strerror or type(exc).__name__) from None


def save_media(media: Sequence[Image | File], directory: Path = FILES_DIR) -> list[Path]:
    """Write each image or file under ``directory``, never over an existing file."""
    saved: list[Path] = []
    for item in media:
        name, data = media_bytes(item)
        directory.mkdir(parents=True, exist_ok=True)
        base = Path(Path(name).name)  # a tool's name never leaves the directory
        for n in itertools.count(1):
            target = directory / (base.name if n == 1 else f"{base.stem}-{n}{base.suffix}")
            try:
                with target.open("xb") as handle:  # "x": an existing file is never replaced
                    handle.write(data)
            except FileExistsError:
                continue
            saved.append(target)
            break
    return saved
