"""Usage budgets: how many model tokens and tool calls a run may spend, per day.

A :class:`Budget` names daily limits for three scopes: the session, the user (across
all their sessions) and the channel (every session of one chat channel). ``None``
means no limit for that scope. An owner (Agent, Team, Workflow) takes one as
``budget=``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Budget:
    """Daily limits per scope (UTC days); None: unlimited."""

    tokens_per_session: int | None = None
    tokens_per_user: int | None = None
    tokens_per_channel: int | None = None
    tool_calls_per_session: int | None = None
    tool_calls_per_user: int | None = None
    tool_calls_per_channel: int | None = None
