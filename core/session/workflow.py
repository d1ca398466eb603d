"""Agno's ``agno.session.workflow`` path: a workflow's stored session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.db.session_types import SessionType
from core.session.base import BaseSession

__all__ = ["WorkflowSession"]


@dataclass
class WorkflowSession(BaseSession):
    """A session of a workflow: the state its steps share, its name, its runs."""

    session_type = SessionType.WORKFLOW
    owner_field = "workflow_id"

    workflow_id: str | None = None
    workflow_name: str | None = None
    workflow_data: dict[str, Any] | None = None
