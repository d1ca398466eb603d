"""Settings read from the environment, in this one module and nowhere else.

Field names are the environment variable names in lower case
(``STATEBOT_ADMIN_IDS`` -> ``settings.statebot_admin_ids``). Secrets are ``SecretStr``
so they never show up in a repr or a log line; call ``.get_secret_value()`` at the
one place that hands them to an SDK.

Values also come from a ``.env`` file: ``./.env`` by default, the file named by
``STATEBOT_ENV_FILE`` (``statebot --env-file``) instead, none when that is empty. A
variable set in the real environment wins over the file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bots.admins import check_admin_id
from bots.keys import Scope
from core.crypto import KeyRing

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

#: names the .env file to read instead of ./.env (empty: read none)
ENV_FILE_VARIABLE = "STATEBOT_ENV_FILE"


def env_file_path() -> Path | None:
    """The .env file settings read now: ``STATEBOT_ENV_FILE``, else ``./.env``."""
    named = os.environ.get(ENV_FILE_VARIABLE)
    if named is None:
        return Path(".env")
    return Path(named) if named.strip() else None


def _split_list(value: Any) -> Any:
    """Accept ``"a, b,c"`` as well as a real list."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _split_pairs(value: Any, what: str) -> Any:
    """Accept ``"k1=v1,k2=v2"`` as well as a real mapping."""
    if not isinstance(value, str):
        return value
    pairs: dict[str, str] = {}
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, val = part.partition("=")
        if not sep or not key.strip() or not val.strip():
            raise ValueError(f"{what}: expected KEY=VALUE pairs separated by commas, got {part!r}")
        pairs[key.strip()] = val.strip()
    return pairs


class Settings(BaseSettings):
    """Everything the bots read from the environment."""

    # errors name the variable and why, never its value: several values are secrets
    model_config = SettingsConfigDict(
        case_sensitive=False, extra="ignore", env_file=None, hide_input_in_errors=True
    )

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
        return cls._blank_is_unset(value)  # the one rule for VAR= (compose), below

    @field_validator("slack_scopes", mode="before")
    @classmethod
    def _slack_scopes(cls, value: Any) -> Any:
        # empty (compose's VAR=) means the default list, never "no scopes"
        return (
            SLACK_BOT_SCOPES if isinstance(value, str) and not value.strip() else _split_list(value)
        )

    # --- end of the Slack OAuth block -----------------------------------------------
    # Discord
    discord_token: SecretStr | None = Field(
        default=None,
        description="Discord bot token",
    )
    # Model (any OpenAI-compatible server)
    openai_api_key: SecretStr | None = Field(
        default=None,
        description=(
            "API key of the OpenAI-compatible model server; without a model, free text gets a "
            "reply naming the commands that still work"
        ),
    )
    openai_base_url: str | None = Field(
        default=None,
        description="base URL of an OpenAI-compatible model server (default: OpenAI's)",
    )
    statebot_model: str = Field(
        default="gpt-4o-mini",
        description="model name sent to the model server",
    )
    # Storage
    redis_url: str | None = Field(
        default=None,
        description=(
            "hot state, cross-process de-duplication (Slack events, Discord messages) and "
            "Discord's pending Approve / Reject questions"
        ),
    )
    statebot_db_url: str = Field(
        default="sqlite:///statebot.db",
        description="durable store (`postgresql+psycopg://…` in production)",
    )
    statebot_run_snapshotter: bool = Field(
        default=True,
        description=(
            "with `REDIS_URL`: snapshot from this process; `false` when a standalone `statebot "
            "snapshotter` runs"
        ),
    )
    statebot_redis_ttl: int = Field(
        default=7 * 86_400,
        ge=0,
        description=(
            "with `REDIS_URL`: seconds an idle, already snapshotted session stays in Redis (7 "
            "days); it comes back from the durable store on next use. `0` keeps every session in "
            "Redis"
        ),
    )
    statebot_state_keys: SecretStr | None = Field(
        default=None,
        description=(
            "keys sealing session state at rest in Redis and the durable store: Fernet keys, "
            "comma-separated, newest first (the first encrypts, all decrypt); empty: off. "
            "Rotate with `statebot state rekey` (docs/encryption.md)"
        ),
    )

    @field_validator("statebot_state_keys")
    @classmethod
    def _state_keys(cls, value: SecretStr | None) -> SecretStr | None:
        # a typo here must stop the process at startup, not at the first save
        if value is None or not value.get_secret_value().strip():
            return None
        KeyRing.from_setting(value.get_secret_value())  # EncryptionKeyError says what is wrong
        return value

    # Retention per scope: bots/admin/retention.py, docs/erasure.md
    statebot_retention_dm_days: float | None = Field(
        default=None,
        gt=0,
        description=(
            "delete direct-message (and user-scoped) sessions, their history and schedules "
            "this many days after their last change; unset keeps them"
        ),
    )
    statebot_retention_thread_days: float | None = Field(
        default=None,
        gt=0,
        description="the same for thread sessions; unset keeps them",
    )
    statebot_retention_channel_days: float | None = Field(
        default=None,
        gt=0,
        description="the same for channel sessions (and the console's); unset keeps them",
    )
    # Chat layer; admin ids: see bots/admins.py (check_admin_id)
    statebot_admin_ids: Annotated[frozenset[str], NoDecode] = Field(
        default=frozenset(),
        description=(
            "admins for `/state`: full user keys, comma-separated — `slack:T0123:U0456` (that "
            "workspace only), `discord:*:<snowflake>` (every guild); bare ids are refused at "
            "start, names are never trusted"
        ),
    )
    statebot_default_agent: str = Field(
        default="taskboard",
        description="agent answering mentions that name none",
    )
    statebot_channel_agents: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description="per-channel default agent, `C0123=shopping,…`",
    )
    statebot_agent_scopes: Annotated[dict[str, Scope], NoDecode] = Field(
        default_factory=dict,
        description="session scope per agent, `taskboard=channel,…` (`thread`, `channel`, `user`)",
    )
    statebot_max_message_chars: int = Field(
        default=8000,
        gt=0,
        description='longer messages get a clear "too long" reply and run nothing',
    )
    # -- scheduled runs (reminders): core/schedule, docs/scheduling.md --------------------
    statebot_scheduler: bool = Field(
        default=True,
        description=(
            "fire scheduled runs (reminders) from this bot process; any number of processes "
            "may, each run fires once"
        ),
    )
    statebot_default_tz: str = Field(
        default="UTC",
        description=(
            "IANA timezone for reminders and due dates when the platform does not give the "
            "user's (Slack's profile does)"
        ),
    )
    statebot_schedule_max_late: int = Field(
        default=86_400,
        gt=0,
        description=(
            "seconds a scheduled run missed while every process was down may still fire "
            "(late, with a note); older ones are skipped with a log line"
        ),
    )
    statebot_history_runs: int = Field(
        default=5,
        ge=0,
        description="earlier runs of the session each chat turn shows the model (`0`: no history)",
    )
    statebot_stream_replies: bool = Field(
        default=False,
        description=(
            "show answers while they are written (one message edited at most once per "
            '`STATEBOT_STREAM_SECONDS`, see chat.md "Streaming and status"); off: one final '
            "message"
        ),
    )
    statebot_stream_seconds: float = Field(
        default=1.0,
        gt=0,
        description="least seconds between two edits of a streamed answer",
    )
    # -- usage budgets: core/run/budget.py, docs/budgets.md -------------------------------
    statebot_budget_tokens_per_session: int | None = Field(
        default=None,
        ge=0,
        description="model tokens (in + out) a conversation may use per UTC day (empty: none)",
    )
    statebot_budget_tokens_per_user: int | None = Field(
        default=None,
        ge=0,
        description="model tokens one user may use per UTC day in all conversations (empty: none)",
    )
    statebot_budget_tokens_per_channel: int | None = Field(
        default=None,
        ge=0,
        description="model tokens one chat channel may use per UTC day (empty: none)",
    )
    statebot_budget_tool_calls_per_session: int | None = Field(
        default=None,
        ge=0,
        description="tool calls (model or slash command) a conversation may make per UTC day",
    )
    statebot_budget_tool_calls_per_user: int | None = Field(
        default=None,
        ge=0,
        description="tool calls one user may make per UTC day in all conversations (empty: none)",
    )
    statebot_budget_tool_calls_per_channel: int | None = Field(
        default=None,
        ge=0,
        description="tool calls one chat channel may make per UTC day (empty: none)",
    )

    @field_validator(
        "statebot_budget_tokens_per_session",
        "statebot_budget_tokens_per_user",
        "statebot_budget_tokens_per_channel",
        "statebot_budget_tool_calls_per_session",
        "statebot_budget_tool_calls_per_user",
        "statebot_budget_tool_calls_per_channel",
        mode="before",
    )
    @classmethod
    def _budget_blank_is_unlimited(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    # Logging and serving
    statebot_log_format: Literal["json", "console"] | None = Field(
        default=None,
        description="`json` or `console` (default: `console` on a terminal, else `json`)",
    )
    statebot_log_level: str = Field(
        default="INFO",
        description="log level (`DEBUG`, `INFO`, `WARNING`, …)",
    )
    port: int = Field(
        default=3000,
        description="Slack HTTP port",
    )
    statebot_health_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description=(
            "port of `/healthz`, `/readyz` and `/metrics` for Socket Mode, Discord and the "
            "snapshotter (unset: off)"
        ),
    )
    statebot_otel: bool = Field(
        default=False,
        description=(
            "`true`: OpenTelemetry spans for each run (model calls, tool calls, store round "
            "trips) on the global tracer provider; needs the `opentelemetry` packages"
        ),
    )

    # --- Web console (statebot web; see docs/web-admin.md) ---------------------------
    statebot_web_host: str = Field(
        default="127.0.0.1",
        description="address `statebot web` listens on",
    )
    statebot_web_port: int = Field(
        default=8090,
        ge=0,
        le=65535,
        description="port of `statebot web`",
    )
    statebot_web_secret: SecretStr | None = Field(
        default=None,
        description=(
            "key signing the console's session cookies and CSRF tokens (32+ random "
            "characters; required by `statebot web`)"
        ),
    )
    statebot_web_url: str | None = Field(
        default=None,
        description=(
            "public URL of the console, e.g. `https://ops.example.com/admin` (Sign in with "
            "Slack redirects back to it)"
        ),
    )
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
    statebot_web_tokens_file: str = Field(
        default="statebot-web-tokens.json",
        description="where `statebot web --create-admin` keeps one-time sign-in tokens (hashed)",
    )
    statebot_web_reveal_ids: Annotated[frozenset[str], NoDecode] = Field(
        default=frozenset(),
        description=(
            "admin ids (of `STATEBOT_ADMIN_IDS`) who see state values under credential names "
            "in the console; everyone else sees them redacted"
        ),
    )
    # --- end web console ------------------------------------------------------------

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments, then the environment, then the .env file chosen at this moment."""
        # resolved per instance, not at import: `statebot --env-file` and tests that
        # chdir must be seen by every Settings() built afterwards
        dotenv = DotEnvSettingsSource(settings_cls, env_file=env_file_path())
        return init_settings, env_settings, dotenv, file_secret_settings

    @field_validator("statebot_default_tz")
    @classmethod
    def _default_tz(cls, value: str) -> str:
        # a typo here would only surface when the first reminder is read
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA timezone (e.g. Europe/Madrid)") from None
        return value

    @field_validator("statebot_admin_ids", mode="before")
    @classmethod
    def _admin_ids(cls, value: Any) -> Any:
        # full user keys only (platform:workspace:user, or platform:*:user): a bare
        # user id would make its owner admin in every workspace
        entries = _split_list(value)
        if not isinstance(entries, list | tuple | set | frozenset):
            return entries  # pydantic reports the wrong type
        return [check_admin_id(str(entry)) for entry in entries]

    @field_validator("statebot_web_reveal_ids", mode="before")
    @classmethod
    def _web_reveal_ids(cls, value: Any) -> Any:
        entries = _split_list(value)
        if not isinstance(entries, list | tuple | set | frozenset):
            return entries
        return [check_admin_id(str(entry)) for entry in entries]

    @field_validator("statebot_channel_agents", mode="before")
    @classmethod
    def _channel_agents(cls, value: Any) -> Any:
        return _split_pairs(value, "STATEBOT_CHANNEL_AGENTS")

    @field_validator("statebot_agent_scopes", mode="before")
    @classmethod
    def _agent_scopes(cls, value: Any) -> Any:
        return _split_pairs(value, "STATEBOT_AGENT_SCOPES")

    @field_validator(
        "slack_bot_token",
        "slack_signing_secret",
        "slack_app_token",
        "discord_token",
        "openai_api_key",
        "openai_base_url",
        "redis_url",
        "statebot_web_secret",
        "statebot_web_url",
        "statebot_web_oidc_client_id",
        "statebot_web_oidc_client_secret",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # compose files often pass VAR= for "unset"
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _log_format_default(self) -> Settings:
        if self.statebot_log_format is None:
            self.statebot_log_format = "console" if sys.stderr.isatty() else "json"
        return self

    @property
    def model_configured(self) -> bool:
        """True when a model server is configured (key or base URL)."""
        return self.openai_api_key is not None or self.openai_base_url is not None


def setting_sources(settings_cls: type[BaseSettings] = Settings) -> dict[str, str]:
    """Where each setting's value comes from: ``environment``, ``.env`` or ``default``."""
    environment = {name.lower() for name in os.environ}
    path = env_file_path()
    in_file: set[str] = set()
    if path is not None and path.is_file():
        in_file = {name.lower() for name in dotenv_values(path)}
    sources: dict[str, str] = {}
    for name in settings_cls.model_fields:
        if name in environment:
            sources[name] = "environment"
        elif name in in_file:
            sources[name] = ".env"
        else:
            sources[name] = "default"
    return sources
