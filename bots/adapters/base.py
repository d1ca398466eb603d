"""The ``Adapter`` protocol: what a platform gives the rest of Statebot.

Small and explicit, like httpx's one-method transport: a name, the traits shared
modules act on, the ``statebot <name>`` command, and ``serve``, which runs the
platform until it is stopped. Everything else (parsing payloads into
``bots.inbound`` records, sending replies, the SDK) stays inside the platform's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import click

    from bots.chat.registry import ChatAgent
    from bots.platforms import PlatformTraits
    from bots.settings import Settings

__all__ = ["Adapter"]


class Adapter(Protocol):
    """One chat platform, as the registry, ``statebot`` and ``bots.serve`` see it."""

    @property
    def name(self) -> str:
        """The platform's name: ``statebot <name>``, ``serve(platform=name)``, the first
        component of its session keys."""
        ...

    @property
    def traits(self) -> PlatformTraits:
        """What shared modules need to know about the platform (``bots.platforms``)."""
        ...

    @property
    def serve_options(self) -> frozenset[str]:
        """The keyword options ``serve`` takes besides agents and settings."""
        ...

    def command(self) -> click.Command:
        """The click command ``statebot <name>`` runs (imported when first asked for)."""
        ...

    def serve(self, agents: Mapping[str, ChatAgent], *, settings: Settings, **options: Any) -> None:
        """Serve ``agents`` on the platform until stopped, as ``statebot <name> --app``
        does; ``options`` are among :attr:`serve_options`."""
        ...
