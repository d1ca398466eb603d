"""Agno's ``agno.session.team`` path: a team's stored session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.db.session_types import SessionType
from core.session.base import BaseSession

__all__ = ["TeamSession"]


@dataclass
class TeamSession(BaseSession):
    """A session of a team: the state its members share, its name, its runs."""

    session_type = SessionType.TEAM
    owner_field = "team_id"

    team_id: str | None = None
    workflow_id: str | None = None
    team_data: dict[str, Any] | None = None
