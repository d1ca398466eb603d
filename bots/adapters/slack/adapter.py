"""Slack as the registry sees it: its traits, ``statebot slack`` and ``serve``.

Light to import (the registry loads every platform's line to know their traits);
slack-bolt and the serving code are imported when the command or ``serve`` is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.traits import TRAITS
from bots.platforms import PlatformTraits

if TYPE_CHECKING:
    import click

    from bots.adapters.base import Adapter, AppManifest
    from bots.chat.registry import ChatAgent
    from bots.settings import Settings
    from bots.web.names import OfferedNames
    from bots.web.sign_in import SignInProvider

__all__ = ["ADAPTER", "SlackAdapter"]


@dataclass(frozen=True, slots=True)
class SlackAdapter:
    """HTTP events (signing secret) or Socket Mode (app token); see ``bots.adapters.slack``."""

    name: str = "slack"
    traits: PlatformTraits = TRAITS
    settings_class: type[SlackSettings] = SlackSettings
    #: ``socket``: Socket Mode (None: when SLACK_APP_TOKEN is set)
    serve_options: frozenset[str] = frozenset({"socket"})

    def command(self) -> click.Command:
        """``statebot slack``."""
        from bots.adapters.slack.cli import slack

        return slack

    def serve(self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any) -> None:
        """Serve until SIGTERM/SIGINT, HTTP on ``PORT`` or Socket Mode."""
        from bots.adapters.slack.cli import serve
        from bots.ops.logging import configure_logging
        from bots.ops.startup import run_process

        configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
        slack = SlackSettings()
        socket = options.get("socket")
        use_socket = slack.slack_app_token is not None if socket is None else bool(socket)
        work = serve(settings, slack, socket=use_socket, port=slack.port, agents=agents)
        run_process(work, name=self.name)

    def web_sign_in(self, settings: Settings) -> SignInProvider | None:
        """Sign in with Slack (OpenID Connect), when a client and the console's URL are set."""
        from bots.adapters.slack.sign_in import sign_in_for

        return sign_in_for(settings, SlackSettings())

    def web_names(self, settings: Settings) -> OfferedNames | None:
        """Users' and channels' names for the console, with the bot's token(s)."""
        from bots.adapters.slack.web_names import names_for

        return names_for(settings, SlackSettings())

    def manifest(
        self,
        agents: Mapping[str, ChatAgent],
        aliases: Mapping[str, Mapping[str, str]],
        *,
        url: str | None,
        socket: bool,
    ) -> AppManifest:
        """The Slack app manifest declaring a slash command per agent (``statebot manifest``)."""
        from bots.adapters.slack.manifest import DEFAULT_URL, slack_manifest

        return slack_manifest(agents, aliases, url=url or DEFAULT_URL, socket=socket)


#: the registry's entry (typed, so mypy checks it keeps the Adapter protocol)
ADAPTER: Adapter = SlackAdapter()
