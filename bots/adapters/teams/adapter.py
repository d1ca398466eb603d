"""Teams as the registry sees it: its traits, ``statebot teams``, ``serve`` and its manifest.

Light to import (the registry loads every platform's line to know their traits);
the Microsoft 365 Agents SDK and the serving code are imported when used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bots.adapters.teams.settings import TeamsSettings
from bots.adapters.teams.traits import TRAITS
from bots.platforms import PlatformTraits

if TYPE_CHECKING:
    import click

    from bots.adapters.base import Adapter, AppManifest
    from bots.chat.registry import ChatAgent
    from bots.settings import Settings

__all__ = ["ADAPTER", "TeamsAdapter"]


@dataclass(frozen=True, slots=True)
class TeamsAdapter:
    """The messaging endpoint: reply chains, chats, DMs; see ``bots.adapters.teams``."""

    name: str = "teams"
    traits: PlatformTraits = TRAITS
    settings_class: type[TeamsSettings] = TeamsSettings
    serve_options: frozenset[str] = frozenset()

    def command(self) -> click.Command:
        """``statebot teams``."""
        from bots.adapters.teams.cli import teams_command

        return teams_command

    def serve(self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any) -> None:
        """Serve until SIGTERM/SIGINT."""
        from bots.adapters.teams.cli import serve
        from bots.ops.logging import configure_logging
        from bots.ops.startup import run_process

        configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
        run_process(serve(settings, TeamsSettings(), agents=agents), name=self.name)

    def manifest(
        self,
        agents: Mapping[str, ChatAgent],
        aliases: Mapping[str, Mapping[str, str]],
        *,
        url: str | None,
        socket: bool,
    ) -> AppManifest:
        """The Teams app package's manifest.json for ``agents`` (bots.adapters.teams.manifest)."""
        from bots.adapters.teams.manifest import teams_manifest

        if socket:  # Teams always calls a public endpoint; there is nothing to declare
            import click

            raise click.BadParameter(
                "Teams has no socket mode: its Azure Bot posts to URL/api/messages",
                param_hint="--socket",
            )
        return teams_manifest(agents, url=url)


#: the registry's entry (typed, so mypy checks it keeps the Adapter protocol)
ADAPTER: Adapter = TeamsAdapter()
