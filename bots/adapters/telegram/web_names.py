"""Telegram names for the web console, over the Bot API with ``TELEGRAM_BOT_TOKEN``.

The console runs no bot: a client is made on the first lookup and asks ``getChat``
(:mod:`bots.adapters.telegram.names`); the console's cache (bots/web/names.py) keeps
the answers.
"""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import ExtBot

from bots.adapters.telegram.bot import make_bot
from bots.adapters.telegram.names import TelegramNames
from bots.adapters.telegram.traits import TRAITS
from bots.web.names import OfferedNames

__all__ = ["TelegramRestNames", "names_for"]


class TelegramRestNames:
    """A NameSource over ``getChat``, its client started on first use."""

    __slots__ = ("_api_url", "_bot", "_lock", "_names", "_token")

    def __init__(self, token: str, api_url: str) -> None:
        self._token = token
        self._api_url = api_url
        self._bot: ExtBot[Any] | None = None
        self._names: TelegramNames | None = None
        self._lock: asyncio.Lock | None = None

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The user's name (``getChat``)."""
        return await (await self._started()).user_name(workspace, user)

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The group's title; None for a private chat."""
        return await (await self._started()).channel_name(workspace, channel)

    async def aclose(self) -> None:
        """Close the client's connections."""
        if self._bot is not None:
            await self._bot.shutdown()

    async def _started(self) -> TelegramNames:
        if self._lock is None:  # made in the serving loop
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._names is None:
                bot = make_bot(self._token, self._api_url)
                await bot.initialize()
                self._bot, self._names = bot, TelegramNames(bot)
        return self._names


def names_for(token: str, api_url: str) -> OfferedNames:
    """Telegram names for ``statebot web`` with the bot token ``token``."""
    source = TelegramRestNames(token, api_url)
    return OfferedNames(TRAITS.name, source, close=source.aclose)
