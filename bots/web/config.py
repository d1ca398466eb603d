"""What the console needs from the settings, read once (``bots.settings`` stays the only
module that reads the environment)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bots.settings import Settings
from bots.web.names import OfferedNames
from bots.web.sign_in import SignInProvider
from core.crypto import SECRET_HINT

#: how long a signed-in session lasts without signing in again
SESSION_SECONDS = 8 * 3600


class WebConfigError(ValueError):
    """The console cannot start with these settings; the message says what to set."""


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The console's settings."""

    secret: str
    admin_ids: frozenset[str]
    reveal_ids: frozenset[str] = frozenset()
    tokens_file: Path = Path("statebot-web-tokens.json")
    #: public URL of the console (the OpenID redirect is built from it)
    public_url: str | None = None
    #: the platforms admins may sign in with (besides one-time tokens)
    sign_in: tuple[SignInProvider, ...] = ()
    session_seconds: int = SESSION_SECONDS
    #: the platforms whose user and channel names the pages show (bots/web/names.py)
    names: tuple[OfferedNames, ...] = ()

    def provider(self, name: str) -> SignInProvider | None:
        """The sign-in provider of platform ``name``, if it is offered."""
        return next((found for found in self.sign_in if found.name == name), None)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        sign_in: Sequence[SignInProvider] = (),
        names: Sequence[OfferedNames] = (),
    ) -> WebConfig:
        """The console's view of ``settings``, offering the ``sign_in`` providers and the
        ``names`` lookups the adapters built; WebConfigError naming what is missing."""
        if settings.statebot_web_secret is None:
            raise WebConfigError(
                "STATEBOT_WEB_SECRET is not set: the console signs its cookies with it; "
                + SECRET_HINT
            )
        # strong enough: the setting refuses placeholders and weak values (core/crypto.py)
        secret = settings.statebot_web_secret.get_secret_value()
        unknown = settings.statebot_web_reveal_ids - settings.statebot_admin_ids
        if unknown:
            raise WebConfigError(
                f"STATEBOT_WEB_REVEAL_IDS names ids that are not in STATEBOT_ADMIN_IDS: "
                f"{', '.join(sorted(unknown))}"
            )
        return cls(
            secret=secret,
            admin_ids=settings.statebot_admin_ids,
            reveal_ids=settings.statebot_web_reveal_ids,
            tokens_file=Path(settings.statebot_web_tokens_file),
            public_url=settings.statebot_web_url,
            sign_in=tuple(sign_in),
            names=tuple(names),
        )

