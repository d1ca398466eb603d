"""Slack's own settings: one workspace's tokens, or the OAuth install flow for many.

Read like every setting (``bots.settings.EnvSettings``: arguments, the environment, then
``.env``); ``statebot config`` lists them after the neutral ones.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from bots.settings import EnvSettings, blank_is_unset, split_list
from core.crypto import KeyRing

__all__ = ["SLACK_BOT_SCOPES", "SlackSettings"]

#: Slack OAuth block: the bot scopes of deploy/slack-app-manifest.yaml, which the OAuth
#: install flow asks for (a test keeps the two lists equal)
SLACK_BOT_SCOPES = (
    "app_mentions:read",
    "chat:write",
    "commands",
    "reactions:write",
    "files:write",
    "files:read",
    "users:read",
    "channels:read",
    "groups:read",
    "im:read",
    "mpim:read",
    "channels:history",
    "groups:history",
    "im:history",
    "mpim:history",
)


class SlackSettings(EnvSettings):
    """Tokens, secrets and options of the Slack adapter."""

    slack_bot_token: SecretStr | None = Field(
        default=None,
        description="Slack bot token, `xoxb-…` (one workspace; unset with the install flow)",
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None,
        description="Slack signing secret (HTTP mode)",
    )
    slack_app_token: SecretStr | None = Field(
        default=None,
        description="Slack app-level token, `xapp-…`, scope `connections:write` (Socket Mode)",
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/",
        description="Slack Web API base URL (proxies, tests)",
    )
    statebot_slack_retry_seconds: float = Field(
        default=30.0,
        ge=0,
        description="seconds one Slack Web API call keeps retrying 429/5xx (honouring Retry-After)",
    )
    statebot_slack_skip_others_mentions: bool = Field(
        default=True,
        description=(
            "in a thread the bot follows, leave alone replies that mention others and not the bot"
        ),
    )
    port: int = Field(
        default=3000,
        description="Slack HTTP port",
    )
    # --- Slack OAuth install flow (many workspaces from one process) ---------------
    slack_client_id: str | None = Field(
        default=None,
        description=(
            "Slack app Client ID; with `SLACK_CLIENT_SECRET` the app serves `/slack/install` "
            "and every workspace that installs it (no `SLACK_BOT_TOKEN` then)"
        ),
    )
    slack_client_secret: SecretStr | None = Field(
        default=None,
        description="Slack app Client Secret (OAuth install flow)",
    )
    slack_scopes: Annotated[tuple[str, ...], NoDecode] = Field(
        default=SLACK_BOT_SCOPES,
        description="bot scopes an install asks for, comma-separated (default: the manifest's)",
    )
    slack_redirect_uri: str | None = Field(
        default=None,
        description=(
            "public URL of the OAuth redirect, e.g. `https://bot.example.com/slack/oauth_redirect` "
            "(needed when the app lists several redirect URLs)"
        ),
    )
    slack_install_path: str = Field(
        default="/slack/install",
        description="path of the page that starts an install (OAuth install flow)",
    )
    slack_redirect_uri_path: str = Field(
        default="/slack/oauth_redirect",
        description="path Slack redirects to after an install (OAuth install flow)",
    )
    statebot_slack_install_seconds: float = Field(
        default=10.0,
        gt=0,
        le=25,
        description=(
            "seconds an install waits for Slack to exchange its code (`oauth.v2.access`, "
            "`auth.test`) before the browser gets a page to start again (at most 25: browsers "
            "and proxies give up at 30)"
        ),
    )
    statebot_encryption_keys: SecretStr | None = Field(
        default=None,
        description=(
            "Fernet keys encrypting stored Slack tokens, comma-separated, newest first (the "
            "first encrypts, all decrypt); required with `SLACK_CLIENT_ID`"
        ),
    )
    # --- end of the Slack OAuth block -----------------------------------------------
    # --- the web console's Sign in with Slack (bots/adapters/slack/sign_in.py) ---------
    statebot_web_oidc_client_id: str | None = Field(
        default=None,
        description=(
            "client id for the console's Sign in with Slack (unset: `SLACK_CLIENT_ID` when "
            "`STATEBOT_WEB_URL` is set, else one-time admin tokens only)"
        ),
    )
    statebot_web_oidc_client_secret: SecretStr | None = Field(
        default=None,
        description="client secret for the console's Sign in with Slack (or `SLACK_CLIENT_SECRET`)",
    )

    @field_validator(
        "slack_bot_token",
        "slack_signing_secret",
        "slack_app_token",
        "slack_client_id",
        "slack_client_secret",
        "slack_redirect_uri",
        "statebot_encryption_keys",
        "statebot_web_oidc_client_id",
        "statebot_web_oidc_client_secret",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return blank_is_unset(value)

    @field_validator("slack_scopes", mode="before")
    @classmethod
    def _slack_scopes(cls, value: Any) -> Any:
        # empty (compose's VAR=) means the default list, never "no scopes"
        return (
            SLACK_BOT_SCOPES if isinstance(value, str) and not value.strip() else split_list(value)
        )

    @field_validator("statebot_encryption_keys")
    @classmethod
    def _encryption_keys(cls, value: SecretStr | None) -> SecretStr | None:
        # a malformed or weak key stops the process at start, not at the first install
        if value is not None:
            KeyRing.from_setting(value.get_secret_value())  # EncryptionKeyError says why
        return value
