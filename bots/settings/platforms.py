"""Platform settings: Slack (one workspace, or the OAuth install flow for many) and Discord."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from bots.settings.sources import blank_is_unset, split_list

__all__ = ["SLACK_BOT_SCOPES", "PlatformSettings"]

#: Slack OAuth block: the bot scopes of deploy/slack-app-manifest.yaml, which the OAuth
#: install flow asks for (a test keeps the two lists equal)
SLACK_BOT_SCOPES = (
    "app_mentions:read",
    "chat:write",
    "commands",
    "reactions:write",
    "files:write",
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


class PlatformSettings(BaseModel):
    """Tokens and secrets of the chat platforms."""

    # Slack
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
    statebot_shutdown_grace: float = Field(
        default=25.0,
        ge=0,
        description=(
            "seconds `statebot slack|discord|console` let runs in flight finish after "
            "SIGTERM/SIGINT"
        ),
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
    statebot_encryption_keys: SecretStr | None = Field(
        default=None,
        description=(
            "Fernet keys encrypting stored Slack tokens, comma-separated, newest first (the "
            "first encrypts, all decrypt); required with `SLACK_CLIENT_ID`"
        ),
    )

    @field_validator(
        "slack_client_id",
        "slack_client_secret",
        "slack_redirect_uri",
        "statebot_encryption_keys",
        mode="before",
    )
    @classmethod
    def _slack_oauth_blank_is_unset(cls, value: Any) -> Any:
        return blank_is_unset(value)

    @field_validator("slack_scopes", mode="before")
    @classmethod
    def _slack_scopes(cls, value: Any) -> Any:
        # empty (compose's VAR=) means the default list, never "no scopes"
        return (
            SLACK_BOT_SCOPES if isinstance(value, str) and not value.strip() else split_list(value)
        )

    # --- end of the Slack OAuth block -----------------------------------------------
    # Discord
    discord_token: SecretStr | None = Field(
        default=None,
        description="Discord bot token",
    )
