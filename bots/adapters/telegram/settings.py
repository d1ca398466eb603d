"""Telegram's own settings, read like every setting (``bots.settings.EnvSettings``)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, SecretStr, field_validator

from bots.settings import EnvSettings, blank_is_unset

__all__ = ["TelegramSettings"]

_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


class TelegramSettings(EnvSettings):
    """The bot token, where the Bot API is, and the optional webhook."""

    telegram_bot_token: SecretStr | None = Field(
        default=None,
        description="Telegram bot token from @BotFather",
    )
    telegram_api_url: str = Field(
        default="https://api.telegram.org",
        description="Bot API server (a self-hosted telegram-bot-api server's URL)",
    )
    telegram_webhook_url: str | None = Field(
        default=None,
        description="public HTTPS URL of the webhook; unset: long polling",
    )
    telegram_webhook_secret: SecretStr | None = Field(
        default=None,
        description="secret Telegram sends in X-Telegram-Bot-Api-Secret-Token (webhook mode)",
    )
    telegram_webhook_port: int = Field(
        default=8443,
        description="port the webhook (and /healthz /readyz /metrics) listens on",
    )

    @field_validator("telegram_webhook_secret", mode="after")
    @classmethod
    def _telegram_accepts_the_secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _SECRET.fullmatch(value.get_secret_value()):
            raise ValueError(
                "TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ - "
                "(what Telegram accepts)"
            )
        return value

    @field_validator(
        "telegram_bot_token",
        "telegram_webhook_url",
        "telegram_webhook_secret",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return blank_is_unset(value)
