"""Telegram as the registry sees it: its traits, ``statebot telegram`` and ``serve``.

Light to import (the registry loads every platform's line to know their traits);
python-telegram-bot and the serving code are imported when the command or ``serve``
is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bots.adapters.telegram.settings import TelegramSettings
from bots.adapters.telegram.traits import TRAITS
from bots.platforms import PlatformTraits

if TYPE_CHECKING:
    import click

    from bots.adapters.base import Adapter
    from bots.chat.registry import ChatAgent
    from bots.settings import Settings
    from bots.web.names import OfferedNames

__all__ = ["ADAPTER", "TelegramAdapter"]


@dataclass(frozen=True, slots=True)
class TelegramAdapter:
    """Long polling or a webhook; groups, forum topics, DMs, commands, inline keyboards."""

    name: str = "telegram"
    traits: PlatformTraits = TRAITS
    settings_class: type[TelegramSettings] = TelegramSettings
    serve_options: frozenset[str] = frozenset()

    def command(self) -> click.Command:
        """``statebot telegram``."""
        from bots.adapters.telegram.command import telegram_command

        return telegram_command

    def serve(self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any) -> None:
        """Serve until SIGTERM/SIGINT."""
        from bots.adapters.telegram.command import serve_blocking

        serve_blocking(settings, agents)

    def web_names(self, settings: Settings) -> OfferedNames | None:
        """Users' and groups' names for the console (``getChat``), with the bot token."""
        tg = TelegramSettings()
        if tg.telegram_bot_token is None:
            return None
        try:  # python-telegram-bot is an extra: without it the console shows ids
            from bots.adapters.telegram.web_names import names_for
        except ImportError:
            return None
        return names_for(tg.telegram_bot_token.get_secret_value(), tg.telegram_api_url)


#: the registry's entry (typed, so mypy checks it keeps the Adapter protocol)
ADAPTER: Adapter = TelegramAdapter()
