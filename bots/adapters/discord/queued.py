"""Discord's "queued" notice (``bots.chat.queued``): a short reply to the waiting message.

"Queued behind 2 requests in this conversation; …" is posted at once as a reply to
the message (no one is pinged), when its run joins its conversation's queue; the
answer follows when the run is done. A notice Discord refuses is logged by the chat
layer and the run goes on.
"""

from __future__ import annotations

import discord

from bots.chat.queued import queued_text

__all__ = ["DiscordQueued"]


class DiscordQueued:
    """Tells one message's author it waits behind others."""

    __slots__ = ("_message",)

    def __init__(self, message: discord.Message) -> None:
        self._message = message

    async def queued(self, ahead: int) -> None:
        """Reply "queued behind N" to the message, pinging no one."""
        await self._message.reply(
            queued_text(ahead),
            mention_author=False,
            allowed_mentions=discord.AllowedMentions.none(),
        )
