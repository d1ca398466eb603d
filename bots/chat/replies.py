"""What the chat layer hands back to an adapter to send."""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass

from bots.chat.approvals import Approval
from bots.chat.cards import Card
from core.media import File, Image
from core.run.output import RunOutput


@dataclass(frozen=True, slots=True)
class Reply:
    """Text to post; ``ephemeral`` asks the platform to show it to the sender only.

    ``approval``: the run waits for a person's yes; the adapter shows Approve / Reject
    buttons under ``text`` (which names the tool and its arguments).

    ``card``: the same answer structured (a board, a state dump) for platforms that
    render it; ``text`` stays the complete plain-text fallback.

    ``media``: images and files a tool returned (``ToolResult``), posted after the text
    in the same place (Slack: files upload v2; Discord: attachments; console: saved and
    the path printed), with the text's delivery guarantees (docs/files.md).
    """

    text: str
    ephemeral: bool = False
    approval: Approval | None = None
    card: Card | None = None
    media: tuple[Image | File, ...] = ()


def media_of(output: RunOutput) -> tuple[Image | File, ...]:
    """The images then the files a run's tools returned, to post with its reply
    (one given by URL only is a link: :func:`media_links`)."""
    items = (*(output.images or ()), *(output.files or ()))
    return tuple(item for item in items if item.url is None)


def media_links(output: RunOutput) -> list[str]:
    """The URLs of a run's tool media given by URL only (shown as links in the text)."""
    items = (*(output.images or ()), *(output.files or ()))
    return [item.url for item in items if item.url is not None]


def media_bytes(item: Image | File) -> tuple[str, bytes]:
    """(file name, bytes) of a tool's image or file, as an upload needs them.

    A name without an extension gets the one of its type, so platforms show it right.
    """
    data = item.get_content_bytes() or b""
    name = item.display_name()
    if "." not in name:
        extension = mimetypes.guess_extension(item.media_type()) or ""
        name = f"{name}{extension}"
    return name, data
