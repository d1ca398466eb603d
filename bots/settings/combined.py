"""The one ``Settings`` object: every concern's fields, the sources in order, the checks
that span concerns."""

from __future__ import annotations

import os
import sys
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bots.admins import check_admin_id
from bots.settings.chat import ChatSettings
from bots.settings.platforms import PlatformSettings
from bots.settings.serving import ServingSettings
from bots.settings.sources import blank_is_unset, env_file_path, split_list, split_pairs
from bots.settings.storage import StorageSettings

__all__ = ["Settings", "setting_sources"]


class Settings(ServingSettings, ChatSettings, StorageSettings, PlatformSettings, BaseSettings):
    """Everything the bots read from the environment."""

    # errors name the variable and why, never its value: several values are secrets
    model_config = SettingsConfigDict(
        case_sensitive=False, extra="ignore", env_file=None, hide_input_in_errors=True
    )

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
