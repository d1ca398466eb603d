"""Chat-layer settings: retention per scope, admins and routing, scheduled runs, budgets."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import NoDecode

from bots.keys import Scope

__all__ = ["ChatSettings"]


class ChatSettings(BaseModel):
    """How the chat layer routes, keeps, schedules and meters conversations."""

    # Retention per scope: bots/app/retention.py, docs/erasure.md
    statebot_retention_dm_days: float | None = Field(
        default=None,
        gt=0,
        description=(
            "delete direct-message (and user-scoped) sessions, their history and schedules "
            "this many days after their last change; unset keeps them"
        ),
    )
    statebot_retention_thread_days: float | None = Field(
        default=None,
        gt=0,
        description="the same for thread sessions; unset keeps them",
    )
    statebot_retention_channel_days: float | None = Field(
        default=None,
        gt=0,
        description="the same for channel sessions (and the console's); unset keeps them",
    )
    # Chat layer; admin ids: see bots/admins.py (check_admin_id)
    statebot_admin_ids: Annotated[frozenset[str], NoDecode] = Field(
        default=frozenset(),
        description=(
            "admins for `/state`: full user keys, comma-separated — `slack:T0123:U0456` (that "
            "workspace only), `discord:*:<snowflake>` (every guild); bare ids are refused at "
            "start, names are never trusted"
        ),
    )
    statebot_default_agent: str = Field(
        default="taskboard",
        description="agent answering mentions that name none",
    )
    statebot_channel_agents: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description="per-channel default agent, `C0123=shopping,…`",
    )
    statebot_agent_scopes: Annotated[dict[str, Scope], NoDecode] = Field(
        default_factory=dict,
        description="session scope per agent, `taskboard=channel,…` (`thread`, `channel`, `user`)",
    )
    statebot_max_message_chars: int = Field(
        default=8000,
        gt=0,
        description='longer messages get a clear "too long" reply and run nothing',
    )
    # -- files and images people attach: bots/chat/attachments.py, docs/files.md ---------
    statebot_max_file_bytes: int = Field(
        default=10 * 1024 * 1024,
        gt=0,
        description=(
            "largest attached file or image downloaded for the model (bytes); a larger one "
            "gets a one-line note and the message's text still runs"
        ),
    )
    statebot_max_files: int = Field(
        default=5,
        ge=0,
        description="attachments used per message (the rest get a one-line note); 0 uses none",
    )
    # -- scheduled runs (reminders): core/schedule, docs/scheduling.md --------------------
    statebot_scheduler: bool = Field(
        default=True,
        description=(
            "fire scheduled runs (reminders) from this bot process; any number of processes "
            "may, each run fires once"
        ),
    )
    statebot_default_tz: str = Field(
        default="UTC",
        description=(
            "IANA timezone for reminders and due dates when the platform does not give the "
            "user's (Slack's profile does)"
        ),
    )
    statebot_schedule_max_late: int = Field(
        default=86_400,
        gt=0,
        description=(
            "seconds a scheduled run missed while every process was down may still fire "
            "(late, with a note); older ones are skipped with a log line"
        ),
    )
    statebot_history_runs: int = Field(
        default=5,
        ge=0,
        description="earlier runs of the session each chat turn shows the model (`0`: no history)",
    )
    statebot_catch_up: int = Field(
        default=50,
        ge=0,
        description=(
            "earlier messages of a thread the model reads when the bot is first asked there "
            "(an agent's own `catch_up` wins; `0`: off)"
        ),
    )
    statebot_catch_up_chars: int = Field(
        default=8000,
        gt=0,
        description="characters of those earlier messages at most (the oldest are left out first)",
    )
    statebot_stream_replies: bool = Field(
        default=False,
        description=(
            "show answers while they are written (one message edited at most once per "
            '`STATEBOT_STREAM_SECONDS`, see chat.md "Streaming and status"); off: one final '
            "message"
        ),
    )
    statebot_stream_seconds: float = Field(
        default=1.0,
        gt=0,
        description="least seconds between two edits of a streamed answer",
    )
    # -- usage budgets: core/governance/budgets/model.py, docs/budgets.md -------------------
    statebot_budget_tokens_per_session: int | None = Field(
        default=None,
        ge=0,
        description="model tokens (in + out) a conversation may use per UTC day (empty: none)",
    )
    statebot_budget_tokens_per_user: int | None = Field(
        default=None,
        ge=0,
        description="model tokens one user may use per UTC day in all conversations (empty: none)",
    )
    statebot_budget_tokens_per_channel: int | None = Field(
        default=None,
        ge=0,
        description="model tokens one chat channel may use per UTC day (empty: none)",
    )
    statebot_budget_tool_calls_per_session: int | None = Field(
        default=None,
        ge=0,
        description="tool calls (model or slash command) a conversation may make per UTC day",
    )
    statebot_budget_tool_calls_per_user: int | None = Field(
        default=None,
        ge=0,
        description="tool calls one user may make per UTC day in all conversations (empty: none)",
    )
    statebot_budget_tool_calls_per_channel: int | None = Field(
        default=None,
        ge=0,
        description="tool calls one chat channel may make per UTC day (empty: none)",
    )

    @field_validator(
        "statebot_budget_tokens_per_session",
        "statebot_budget_tokens_per_user",
        "statebot_budget_tokens_per_channel",
        "statebot_budget_tool_calls_per_session",
        "statebot_budget_tool_calls_per_user",
        "statebot_budget_tool_calls_per_channel",
        mode="before",
    )
    @classmethod
    def _budget_blank_is_unlimited(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value
