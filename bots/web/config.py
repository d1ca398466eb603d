"""What the console needs from the settings, read once (``bots.settings`` stays the only
module that reads the environment)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bots.settings import Settings

#: how long a signed-in session lasts without signing in again
SESSION_SECONDS = 8 * 3600


class WebConfigError(ValueError):
    """The console cannot start with these settings; the message says what to set."""


@dataclass(frozen=True, slots=True)
class SlackSignIn:
    """Sign in with Slack (OpenID Connect): the app's client and where Slack lives."""

    client_id: str
    client_secret: str
    #: Slack Web API base URL (``SLACK_API_URL``); the authorize page is beside it
    api_url: str = "https://slack.com/api/"

    @property
    def authorize_url(self) -> str:
        """Slack's OpenID Connect authorize page, on the same host as the Web API."""
        base = self.api_url.rstrip("/")
        base = base.removesuffix("/api")
        return f"{base}/openid/connect/authorize"


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The console's settings."""

    secret: str
    admin_ids: frozenset[str]
    reveal_ids: frozenset[str] = frozenset()
    tokens_file: Path = Path("statebot-web-tokens.json")
    #: public URL of the console (the OpenID redirect is built from it)
    public_url: str | None = None
    slack: SlackSignIn | None = None
    session_seconds: int = SESSION_SECONDS

    @classmethod
    def from_settings(cls, settings: Settings) -> WebConfig:
        """The console's view of ``settings``; WebConfigError naming what is missing."""
        if settings.statebot_web_secret is None:
            raise WebConfigError(
                "STATEBOT_WEB_SECRET is not set: the console signs its cookies with it. "
                "Make one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        secret = settings.statebot_web_secret.get_secret_value()
        if len(secret) < 32:
            raise WebConfigError("STATEBOT_WEB_SECRET must be at least 32 characters long")
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
            slack=_slack_sign_in(settings),
        )


def _slack_sign_in(settings: Settings) -> SlackSignIn | None:
    """Sign in with Slack: the console's own client, else the Slack app's install-flow
    client (``SLACK_CLIENT_ID``/``SECRET``) once the console has a public URL."""
    client_id = settings.statebot_web_oidc_client_id
    secret = settings.statebot_web_oidc_client_secret
    explicit = client_id is not None or secret is not None
    if explicit and (client_id is None or secret is None):
        raise WebConfigError(
            "Sign in with Slack needs both STATEBOT_WEB_OIDC_CLIENT_ID and "
            "STATEBOT_WEB_OIDC_CLIENT_SECRET (or neither: one-time admin tokens)"
        )
    if not explicit:
        if settings.statebot_web_url is None:
            return None  # the app's client alone does not turn it on: tokens only
        client_id, secret = settings.slack_client_id, settings.slack_client_secret
        if client_id is None or secret is None:
            return None
    if settings.statebot_web_url is None:
        raise WebConfigError(
            "Sign in with Slack needs STATEBOT_WEB_URL, the console's public URL: Slack "
            "sends the browser back to it"
        )
    assert client_id is not None and secret is not None
    return SlackSignIn(client_id, secret.get_secret_value(), settings.slack_api_url)
