"""Agno's ``agno.session.agent`` path: an agent's stored session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.db.session_types import SessionType
from core.session.base import BaseSession

__all__ = ["AgentSession"]


@dataclass
class AgentSession(BaseSession):
    """A session of an agent: its state and name in ``session_data``, its runs."""

    session_type = SessionType.AGENT
    owner_field = "agent_id"

    agent_id: str | None = None
    team_id: str | None = None
    workflow_id: str | None = None
    agent_data: dict[str, Any] | None = None
