"""Discord as the registry sees it: its traits, ``statebot discord`` and ``serve``.

Light to import (the registry loads every platform's line to know their traits);
discord.py and the serving code are imported when the command or ``serve`` is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bots.adapters.discord.settings import DiscordSettings
from bots.adapters.discord.traits import TRAITS
from bots.platforms import PlatformTraits

if TYPE_CHECKING:
    import click

    from bots.adapters.base import Adapter
    from bots.chat.registry import ChatAgent
    from bots.settings import Settings
    from bots.web.names import OfferedNames

__all__ = ["ADAPTER", "DiscordAdapter"]


@dataclass(frozen=True, slots=True)
class DiscordAdapter:
    """The gateway client: mentions, threads, DMs, app commands; see ``bots.adapters.discord``."""

    name: str = "discord"
    traits: PlatformTraits = TRAITS
    settings_class: type[DiscordSettings] = DiscordSettings
    serve_options: frozenset[str] = frozenset()

    def command(self) -> click.Command:
        """``statebot discord``."""
        from bots.adapters.discord.cli import discord_command

        return discord_command

    def serve(self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any) -> None:
        """Serve until SIGTERM/SIGINT."""
        from bots.adapters.discord.cli import serve
        from bots.ops.logging import configure_logging
        from bots.ops.startup import run_process

        configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
        run_process(serve(settings, DiscordSettings(), agents=agents), name=self.name)

    def web_names(self, settings: Settings) -> OfferedNames | None:
        """Members' and channels' names for the console, over REST with DISCORD_TOKEN."""
        token = DiscordSettings().discord_token
        if token is None:
            return None
        # imported here: discord.py is loaded only when there is a token to use it with
        from bots.adapters.discord.web_names import names_for

        return names_for(token.get_secret_value())


#: the registry's entry (typed, so mypy checks it keeps the Adapter protocol)
ADAPTER: Adapter = DiscordAdapter()
