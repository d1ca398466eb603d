"""Streamed replies on Discord: one message sent, then edited as the answer grows.

Discord allows about five edits per 5 s per channel; the throttle
(``STATEBOT_STREAM_SECONDS``, default 1 s) keeps well inside that. Past 2,000
characters the answer continues in a new message. While a tool runs the typing
indicator is triggered again (it lapses after ~10 s, and a long tool would outlast
it). Mentions in edits are inert like every post: the client's ``allowed_mentions``
parses none.
"""

from __future__ import annotations

from typing import Any

import discord
import structlog

from bots.adapters.discord.traits import MESSAGE_LIMIT
from bots.chat.replies import Reply
from bots.chat.streaming import PagedStream, StreamOptions

log = structlog.get_logger(__name__)


class DiscordEditor:
    """The :class:`bots.chat.streaming.MessageEditor` for one Discord channel or thread."""

    __slots__ = ("_channel", "limit")

    def __init__(self, channel: Any) -> None:
        self._channel = channel
        self.limit = MESSAGE_LIMIT

    async def post(self, text: str) -> discord.Message:
        """Send one part; the message is the handle later edits use."""
        message: discord.Message = await self._channel.send(text)
        return message

    async def edit(self, handle: Any, text: str) -> None:
        """Replace a sent part's text."""
        await handle.edit(content=text)

    async def delete(self, handle: Any) -> None:
        """Remove a part the final text no longer needs."""
        await handle.delete()

    async def status(self, running: bool) -> None:
        """Trigger typing when a tool starts; decoration, so a refusal is only logged."""
        if not running:
            return
        try:
            await self._channel.typing()
        except discord.HTTPException as exc:
            log.warning("discord_typing_failed", status=exc.status, code=exc.code)


def discord_stream(channel: Any, options: StreamOptions) -> PagedStream | None:
    """The stream a reply in ``channel`` is shown through; None when streaming is off."""
    return options.sink(DiscordEditor(channel))


async def finish_stream(sink: PagedStream | None, reply: Reply) -> bool:
    """End a streamed reply with the final text; False when the caller must send it.

    Buttons and ephemeral replies go the ordinary way. When Discord refuses the final
    edit the reply is sent the ordinary way too, so it is never lost.
    """
    if sink is None or reply.approval is not None or reply.ephemeral:
        return False
    try:
        return await sink.finish(reply.text)
    except discord.HTTPException as exc:
        log.warning("discord_stream_finish_failed", status=exc.status, code=exc.code)
        return False
