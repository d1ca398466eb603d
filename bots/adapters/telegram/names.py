"""Telegram's side of :mod:`bots.chat.names`: a user's name, a group's title (``getChat``).

The Bot API answers ``getChat`` for users who have talked to the bot and for chats
it is in, which are the ones whose names the model is asked to read; anything else
is a failed lookup, which the name cache treats as unknown (the model reads the id).
"""

from __future__ import annotations

from telegram import Bot


class TelegramNames:
    """A NameSource over ``getChat``."""

    __slots__ = ("_bot",)

    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The user's first and last name (their @username when they have no name)."""
        chat = await self._bot.get_chat(int(user))
        name = " ".join(part for part in (chat.first_name, chat.last_name) if part)
        return name or (f"@{chat.username}" if chat.username else None)

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The group's title; None for a private chat (it has none)."""
        chat = await self._bot.get_chat(int(channel))
        return chat.title or None
