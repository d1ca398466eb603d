"""Discord's side of thread catch-up (``bots.chat.catch_up``): the channel's history.

A mention in a thread or a server channel may be the bot's first look at that
conversation; the chat layer asks this source for the messages before the mention
only when the conversation's session is new. discord.py's ``channel.history``
reads them newest first, ``before`` the mention, in pages of 100 (``GET
/channels/{id}/messages``), as many as the limit asks; they are turned oldest
first. Only what people (and bots) said counts: joins, pins and other system
messages are left out. DMs are not caught up: the bot sees every message of its DMs.

Reading history needs the Read Message History permission; a refusal raises and the
chat layer answers without the catch-up.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bots.chat.catch_up import EarlierMessage

__all__ = ["DiscordHistory", "discord_history"]

#: message types that are something someone said
SAID = frozenset({discord.MessageType.default, discord.MessageType.reply})


class DiscordHistory:
    """The messages of one channel (or thread) before one message."""

    __slots__ = ("_bot_id", "_message")

    def __init__(self, message: discord.Message, bot_id: int) -> None:
        self._message = message
        self._bot_id = bot_id

    async def fetch(self, limit: int) -> Sequence[EarlierMessage]:
        """Up to ``limit`` latest messages before the mention, oldest first."""
        earlier: list[EarlierMessage] = []
        async for said in self._message.channel.history(limit=limit, before=self._message):
            if said.type in SAID:
                mine = said.author.id == self._bot_id
                earlier.append(EarlierMessage(str(said.author.id), said.content, from_bot=mine))
        earlier.reverse()
        return earlier


def discord_history(message: discord.Message, bot_id: int) -> DiscordHistory | None:
    """The earlier messages of ``message``'s conversation; None in a DM."""
    if message.guild is None and getattr(message, "guild_id", None) is None:
        return None
    return DiscordHistory(message, bot_id)
