"""The ``Adapter`` protocol: what a platform gives the rest of Statebot.

Small and explicit, like httpx's one-method transport: a name, the traits shared
modules act on, the platform's own settings class, the ``statebot <name>`` command,
and ``serve``, which runs the platform until it is stopped. Everything else (parsing payloads into
``bots.inbound`` records, sending replies, the SDK) stays inside the platform's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import click

    from bots.chat.registry import ChatAgent
    from bots.platforms import PlatformTraits
    from bots.settings import EnvSettings, Settings
    from bots.web.names import OfferedNames
    from bots.web.sign_in import SignInProvider

__all__ = ["Adapter", "AppManifest", "OffersManifest", "OffersWebNames", "OffersWebSignIn"]


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
    def settings_class(self) -> type[EnvSettings] | None:
        """The platform's own settings (tokens, secrets, options), a class in its folder
        read like every setting; None when it has none. ``statebot config`` lists them."""
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


@runtime_checkable
class OffersWebSignIn(Protocol):
    """An adapter whose platform can sign admins in to the web console (optional: an
    adapter without ``web_sign_in`` offers only what every platform has)."""

    def web_sign_in(self, settings: Settings) -> SignInProvider | None:
        """The console's sign-in with this platform, when the settings configure it;
        ``bots.web.WebConfigError`` when they configure it by halves."""
        ...


@runtime_checkable
class OffersWebNames(Protocol):
    """An adapter whose platform can tell the web console user and channel names
    (optional: without it the console shows that platform's ids)."""

    def web_names(self, settings: Settings) -> OfferedNames | None:
        """The console's name lookup for this platform, when the settings give it a
        way to ask (a token); ``bots.web.WebConfigError`` when configured by halves."""
        ...


@dataclass(frozen=True, slots=True)
class AppManifest:
    """A platform's app manifest as text, and a sentence per agent it could not declare."""

    text: str
    skipped: tuple[str, ...] = ()


@runtime_checkable
class OffersManifest(Protocol):
    """An adapter whose platform delivers only the commands an app manifest declares
    (Slack); ``statebot manifest`` prints it for the agents served."""

    def manifest(
        self,
        agents: Mapping[str, ChatAgent],
        aliases: Mapping[str, Mapping[str, str]],
        *,
        url: str | None,
        socket: bool,
    ) -> AppManifest:
        """The manifest for ``agents`` reached at the public ``url`` (None: the
        platform's placeholder), or over an outgoing connection with ``socket``."""
        ...
