"""Model and storage settings: the OpenAI-compatible server, the hot and durable stores,
the at-rest keys."""

from __future__ import annotations

from pydantic import BaseModel, Field, SecretStr, field_validator

from core.crypto import KeyRing
from core.models.env import DEFAULT_MODEL_ID

__all__ = ["StorageSettings"]


class StorageSettings(BaseModel):
    """The model server and where session state is kept."""

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
        default=DEFAULT_MODEL_ID,
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
