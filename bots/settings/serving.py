"""Serving settings: logging, the process's ports and endpoints, the web console."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from core.crypto import check_secret

__all__ = ["ServingSettings"]


class ServingSettings(BaseModel):
    """How a process logs and serves, and the web admin console."""

    # Logging and serving
    statebot_log_format: Literal["json", "console"] | None = Field(
        default=None,
        description="`json` or `console` (default: `console` on a terminal, else `json`)",
    )
    statebot_log_level: str = Field(
        default="INFO",
        description="log level (`DEBUG`, `INFO`, `WARNING`, …)",
    )
    statebot_shutdown_grace: float = Field(
        default=25.0,
        ge=0,
        description=(
            "seconds `statebot <platform>` lets runs in flight finish after SIGTERM/SIGINT"
        ),
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
            "key signing the console's session cookies and CSRF tokens, 32 random bytes "
            "(`python -c \"import secrets; print(secrets.token_urlsafe(32))\"`); "
            "placeholders and weak values are refused; required by `statebot web`"
        ),
    )
    statebot_web_url: str | None = Field(
        default=None,
        description=(
            "public URL of the console, e.g. `https://ops.example.com/admin` (a platform's "
            "sign-in redirects back to it)"
        ),
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

    @field_validator("statebot_web_secret")
    @classmethod
    def _web_secret(cls, value: SecretStr | None) -> SecretStr | None:
        # a documented placeholder would let anyone sign an admin cookie: refuse it at
        # start, by the rule every secret setting follows (core/crypto.py)
        if value is not None:
            check_secret("the value", value.get_secret_value())
        return value
