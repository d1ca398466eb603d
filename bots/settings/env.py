"""The one way settings are read: arguments, then the environment, then the ``.env``
file chosen at that moment. :class:`Settings` and every adapter's own settings class
(``bots/adapters/<name>/settings.py``) read through it, so a platform's variables
behave exactly like the neutral ones."""

from __future__ import annotations

import os

from dotenv import dotenv_values
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bots.settings.sources import env_file_path

__all__ = ["EnvSettings", "setting_sources"]


class EnvSettings(BaseSettings):
    """Settings from the environment and ``.env``; field name = variable name, lower case."""

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


def setting_sources(settings_cls: type[BaseSettings]) -> dict[str, str]:
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
