"""Teams' own settings, read like every setting (``bots.settings.EnvSettings``)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SecretStr, field_validator

from bots.settings import EnvSettings, blank_is_unset

__all__ = ["DEFAULT_SERVICE_URL", "TeamsSettings"]

#: the Bot Connector endpoint Microsoft documents for proactive messages when the
#: conversation's own (regional) service URL is not known yet
DEFAULT_SERVICE_URL = "https://smba.trafficmanager.net/teams/"


class TeamsSettings(EnvSettings):
    """The Azure Bot's identity (secret or certificate) and the endpoint's port."""

    teams_app_id: str | None = Field(
        default=None, description="Microsoft App ID of the Azure Bot (Entra app client id)"
    )
    teams_app_password: SecretStr | None = Field(
        default=None, description="client secret of that app (or TEAMS_CERT_PFX_FILE)"
    )
    teams_cert_pfx_file: str | None = Field(
        default=None, description="PFX certificate of that app, instead of a secret"
    )
    teams_tenant_id: str | None = Field(
        default=None, description="Entra tenant of a single-tenant bot (unset: multi-tenant)"
    )
    teams_port: int = Field(default=3978, description="port of the messaging endpoint")
    teams_service_url: str = Field(
        default=DEFAULT_SERVICE_URL,
        description="Bot Connector URL for reminders before a tenant has written",
    )
    teams_send_timeout: float = Field(
        default=30.0, gt=0, description="seconds a reply keeps retrying 429/5xx answers"
    )

    @field_validator(
        "teams_app_id",
        "teams_app_password",
        "teams_cert_pfx_file",
        "teams_tenant_id",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return blank_is_unset(value)
