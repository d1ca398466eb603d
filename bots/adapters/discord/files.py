"""Files on Discord: a message's attachments in, a tool's images and files out.

In: :func:`attachments_of` lists ``message.attachments`` (id, filename, content type,
size, CDN URL) as the neutral :class:`bots.inbound.Attachment`; :func:`discord_fetch`
downloads one from its CDN URL (signed by Discord, no token needed), refused as soon
as it passes the bound. Only URLs of the attachments Discord listed are fetched.

Out: :func:`send_media` posts a reply's images and files as message attachments,
at most :data:`FILES_PER_MESSAGE` per message (Discord's limit). Failures raise
``discord.HTTPException`` like any send, so the caller's one failure path (a log line
and the warning reaction) covers them.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import aiohttp
import discord

from bots.chat.attachments import Fetch, FetchError, read_bounded
from bots.chat.replies import media_bytes
from bots.inbound import Attachment
from core.media import File, Image

__all__ = ["FILES_PER_MESSAGE", "attachments_of", "discord_fetch", "media_batches", "send_media"]

#: attachments Discord takes on one message
FILES_PER_MESSAGE = 10
#: seconds one download may take
DOWNLOAD_TIMEOUT = 60.0


def attachments_of(message: discord.Message) -> tuple[Attachment, ...]:
    """The message's attachments as the neutral record (nothing downloaded)."""
    return tuple(
        Attachment(
            name=item.filename,
            media_type=item.content_type or "",
            size=item.size,
            platform_id=str(item.id),
            url=item.url,
        )
        for item in message.attachments
    )


def discord_fetch(message: discord.Message, *, timeout: float = DOWNLOAD_TIMEOUT) -> Fetch:
    """A Fetch for ``message``'s attachments, from the CDN URLs Discord gave with them."""
    listed = {str(item.id): item.url for item in message.attachments}

    async def fetch(attachment: Attachment, limit: int) -> bytes:
        url = listed.get(attachment.platform_id)
        if url is None:
            raise FetchError("it is not an attachment of this message")
        try:
            async with (
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session,
                session.get(url) as response,
            ):
                if response.status != 200:
                    raise FetchError(f"Discord answered HTTP {response.status}")
                return await read_bounded(response, limit)
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise FetchError(type(exc).__name__) from exc

    return fetch


def media_batches(media: Sequence[Image | File]) -> list[list[discord.File]]:
    """``media`` as discord.py files, ten per message."""
    files = []
    for item in media:
        name, data = media_bytes(item)
        files.append(discord.File(io.BytesIO(data), filename=name))
    return [files[i : i + FILES_PER_MESSAGE] for i in range(0, len(files), FILES_PER_MESSAGE)]


async def send_media(channel: Any, media: Sequence[Image | File]) -> None:
    """Post ``media`` in ``channel`` as attachments, ten per message."""
    for batch in media_batches(media):
        await channel.send(files=batch)
