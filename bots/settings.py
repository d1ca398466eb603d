"""Settings read from the environment, in this one module and nowhere else.

Field names are the environment variable names in lower case
(``STATEBOT_ADMIN_IDS`` -> ``settings.statebot_admin_ids``). Secrets are ``SecretStr``
so they never show up in a repr or a log line; call ``.get_secret_value()`` at the
one place that hands them to an SDK.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bots.admin import check_admin_id
from bots.keys import Scope


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

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore", env_file=None)

    # Slack
    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_api_url: str = "https://slack.com/api/"
    # seconds a Slack Web API call keeps retrying 429/5xx (honouring Retry-After)
    statebot_slack_retry_seconds: float = Field(default=30.0, ge=0)
    # in a thread the bot follows, leave alone a message that mentions others, not the bot
    statebot_slack_skip_others_mentions: bool = True
    # seconds `statebot slack|discord|console` let runs in flight finish after SIGTERM/SIGINT
    statebot_shutdown_grace: float = Field(default=25.0, ge=0)
    # Discord
    discord_token: SecretStr | None = None
    # Model (any OpenAI-compatible server)
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    statebot_model: str = "gpt-4o-mini"
    # Storage
    redis_url: str | None = None
    statebot_db_url: str = "sqlite:///statebot.db"
    # with REDIS_URL: snapshot to the durable store from inside this process; turn it
    # off when a standalone `statebot snapshotter` serves several bot processes
    statebot_run_snapshotter: bool = True
    # with REDIS_URL: seconds an idle session stays in Redis once it is snapshotted (it
    # comes back from the durable store on next use); 0 keeps every session in Redis
    statebot_redis_ttl: int = Field(default=7 * 86_400, ge=0)
    # Chat layer; admin ids: see bots/admin.py (check_admin_id)
    statebot_admin_ids: Annotated[frozenset[str], NoDecode] = frozenset()
    statebot_default_agent: str = "taskboard"
    statebot_channel_agents: Annotated[dict[str, str], NoDecode] = Field(default_factory=dict)
    statebot_agent_scopes: Annotated[dict[str, Scope], NoDecode] = Field(default_factory=dict)
    statebot_max_message_chars: int = Field(default=8000, gt=0)
    # earlier runs of the session each chat turn shows the model (0: no history)
    statebot_history_runs: int = Field(default=5, ge=0)
    # stream answers into the thread as they are written (edits), at most one per interval
    statebot_stream_replies: bool = False
    statebot_stream_seconds: float = Field(default=1.0, gt=0)
    # Logging and serving
    statebot_log_format: Literal["json", "console"] | None = None
    statebot_log_level: str = "INFO"
    port: int = 3000

    @field_validator("statebot_admin_ids", mode="before")
    @classmethod
    def _admin_ids(cls, value: Any) -> Any:
        # full user keys only (platform:workspace:user, or platform:*:user): a bare
        # user id would make its owner admin in every workspace
        entries = _split_list(value)
        if not isinstance(entries, list | tuple | set | frozenset):
            return entries  # pydantic reports the wrong type
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
