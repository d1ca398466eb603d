"""The console's seam for signing in through a chat platform: :class:`SignInProvider`.

A platform that can vouch for who is at the browser (Slack's OpenID Connect, for
one) offers a provider from its adapter's folder; the console serves
``/login/<name>`` (the provider's ``start``: where to send the browser) and
``/login/<name>/callback`` (its ``finish``: who the platform says signed in), then
admits the :class:`Identity` only if ``STATEBOT_ADMIN_IDS`` covers that platform user.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Identity", "SignInError", "SignInProvider", "callback_url"]


class SignInError(Exception):
    """Signing in through the platform did not complete; the message says why, for the person."""


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the platform says signed in: a user of one workspace."""

    workspace: str
    user: str
    name: str | None = None


class SignInProvider(Protocol):
    """Signing in to the console with a platform's account."""

    @property
    def name(self) -> str:
        """The platform's name (``/login/<name>``, the admin ids it is checked against)."""
        ...

    @property
    def label(self) -> str:
        """How the sign-in button names the platform ("Sign in with <label>")."""
        ...

    def start(self, callback: str, session: dict[str, Any]) -> str:
        """The URL to send the browser to; what ``finish`` checks goes in ``session``."""
        ...

    async def finish(
        self, callback: str, session: dict[str, Any], query: Mapping[str, str]
    ) -> Identity:
        """The identity the platform confirms for the callback's ``query``; SignInError
        when anything does not match."""
        ...


def callback_url(public_url: str, name: str) -> str:
    """Where the platform sends the browser back (register it in the platform's app)."""
    return public_url.rstrip("/") + f"/login/{name}/callback"
