"""Discord's own settings, read like every setting (``bots.settings.EnvSettings``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr, field_validator

from bots.settings import EnvSettings, blank_is_unset

__all__ = ["DiscordSettings"]


class DiscordSettings(EnvSettings):
    """The Discord adapter's token."""

    discord_token: SecretStr | None = Field(
        default=None,
        description="Discord bot token",
    )

    @field_validator("discord_token", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return blank_is_unset(value)
