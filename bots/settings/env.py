"""The one way settings are read: arguments, then the environment, then the ``.env``
file chosen at that moment. :class:`Settings` and every adapter's own settings class
(``bots/adapters/<name>/settings.py``) read through it, so a platform's variables
behave exactly like the neutral ones.

Each class reads only its own fields: other variables in the environment or the
``.env`` file belong to another class (or to nobody) and are left alone. An argument
is different: ``Settings(slack_bot_token=...)`` would be accepted and ignored, so an
argument naming no field is refused, naming the class that has it."""

from __future__ import annotations

import os
from typing import Any

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
        _refuse_unknown(settings_cls, init_settings())
        # resolved per instance, not at import: `statebot --env-file` and tests that
        # chdir must be seen by every Settings() built afterwards
        dotenv = DotEnvSettingsSource(settings_cls, env_file=env_file_path())
        return init_settings, env_settings, dotenv, file_secret_settings


def _refuse_unknown(settings_cls: type[BaseSettings], arguments: dict[str, Any]) -> None:
    """TypeError, as for any unexpected keyword, for the first argument that is not a
    field of ``settings_cls`` (``extra="ignore"`` is for the environment and ``.env``,
    which hold other classes' variables), naming the class that has it if one does."""
    for name in arguments:
        if name in settings_cls.model_fields:
            continue
        owner = _owner(name, settings_cls)
        asked = settings_cls.__name__
        if owner is None:
            raise TypeError(f"{name} is not a {asked} field")
        raise TypeError(f"{name} is a {owner.__name__} field, not a {asked} one")


def _owner(name: str, asked: type[BaseSettings]) -> type[BaseSettings] | None:
    """The first loaded settings class with the field ``name`` (every registered
    adapter's class is loaded with the registry), other than ``asked`` and its kin."""
    seen: list[type[BaseSettings]] = []
    queue: list[type[BaseSettings]] = list(EnvSettings.__subclasses__())
    while queue:  # breadth first: a class before the subclasses tests derive from it
        cls = queue.pop(0)
        if cls in seen:
            continue
        seen.append(cls)
        queue.extend(cls.__subclasses__())
        kin = issubclass(cls, asked) or issubclass(asked, cls)
        if not kin and name in cls.model_fields:
            return cls
    return None


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
