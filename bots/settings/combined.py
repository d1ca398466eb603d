"""The one ``Settings`` object: every concern's fields, the sources in order, the checks
that span concerns."""

from __future__ import annotations

import sys
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import field_validator, model_validator

from bots.admins import check_admin_id
from bots.settings.chat import ChatSettings
from bots.settings.env import EnvSettings
from bots.settings.mcp import McpSettings
from bots.settings.serving import ServingSettings
from bots.settings.sources import blank_is_unset, split_list, split_pairs
from bots.settings.storage import StorageSettings

__all__ = ["Settings"]


class Settings(ServingSettings, ChatSettings, McpSettings, StorageSettings, EnvSettings):
    """Everything the bots read from the environment but the platforms' own settings
    (each adapter's ``settings.py``: tokens, secrets, Slack's install flow)."""

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
        entries = split_list(value)
        if not isinstance(entries, list | tuple | set | frozenset):
            return entries  # pydantic reports the wrong type
        return [check_admin_id(str(entry)) for entry in entries]

    @field_validator("statebot_web_reveal_ids", mode="before")
    @classmethod
    def _web_reveal_ids(cls, value: Any) -> Any:
        entries = split_list(value)
        if not isinstance(entries, list | tuple | set | frozenset):
            return entries
        return [check_admin_id(str(entry)) for entry in entries]

    @field_validator("statebot_channel_agents", mode="before")
    @classmethod
    def _channel_agents(cls, value: Any) -> Any:
        return split_pairs(value, "STATEBOT_CHANNEL_AGENTS")

    @field_validator("statebot_agent_scopes", mode="before")
    @classmethod
    def _agent_scopes(cls, value: Any) -> Any:
        return split_pairs(value, "STATEBOT_AGENT_SCOPES")

    @field_validator(
        "openai_api_key",
        "openai_base_url",
        "redis_url",
        "statebot_web_secret",
        "statebot_web_url",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return blank_is_unset(value)

    @model_validator(mode="after")
    def _log_format_default(self) -> Settings:
        if self.statebot_log_format is None:
            self.statebot_log_format = "console" if sys.stderr.isatty() else "json"
        return self

    @property
    def model_configured(self) -> bool:
        """True when a model server is configured (key or base URL)."""
        return self.openai_api_key is not None or self.openai_base_url is not None

