"""The terminal console as the registry sees it: its traits, ``statebot console`` and
``serve``. Light to import; the console itself is imported when used."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bots.adapters.console.traits import TRAITS
from bots.platforms import PlatformTraits

if TYPE_CHECKING:
    import click

    from bots.adapters.base import Adapter
    from bots.chat.registry import ChatAgent
    from bots.settings import Settings

__all__ = ["ADAPTER", "ConsoleAdapter"]


@dataclass(frozen=True, slots=True)
class ConsoleAdapter:
    """A terminal chat with the agents; see ``bots.adapters.console``."""

    name: str = "console"
    traits: PlatformTraits = TRAITS
    #: the console's settings are the neutral ones (its store, shutdown grace)
    settings_class: None = None
    #: ``session``: the session to start in (default ``default``)
    serve_options: frozenset[str] = frozenset({"session"})

    def command(self) -> click.Command:
        """``statebot console``."""
        from bots.adapters.console.command import console

        return console

    def serve(self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any) -> None:
        """Read lines until end of input, /quit or a stop signal; logs stay on stderr."""
        import sys

        from bots.adapters.console.command import prepare_console, start_console
        from bots.ops.logging import configure_logging

        # stdout carries replies only, as with `statebot console`
        configure_logging("console", level="WARNING", stream=sys.stderr, force=True)
        app, agent_id = prepare_console(settings, agents=agents)
        start_console(app, agent_id, options.get("session") or "default")


#: the registry's entry (typed, so mypy checks it keeps the Adapter protocol)
ADAPTER: Adapter = ConsoleAdapter()
