"""Agno's ``agno.session.team`` path: a team's stored session."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.db.session_types import SessionType
from core.models.base import Message
from core.run.output import RunOutput, RunStatus
from core.session.base import BaseSession, messages_of

__all__ = ["TeamSession"]


@dataclass
class TeamSession(BaseSession):
    """A session of a team: the state its members share, its name, its runs."""

    session_type = SessionType.TEAM
    owner_field = "team_id"

    team_id: str | None = None
    workflow_id: str | None = None
    team_data: dict[str, Any] | None = None

    def get_messages(
        self,
        agent_id: str | None = None,
        team_id: str | None = None,
        last_n_runs: int | None = None,
        limit: int | None = None,
        skip_roles: Iterable[str] | None = None,
        skip_statuses: Iterable[RunStatus] | None = None,
        skip_history_messages: bool = True,
        *,
        member_ids: Iterable[str] | None = None,
        skip_member_messages: bool = True,
    ) -> list[Message]:
        """As BaseSession.get_messages; ``member_ids`` gives the runs of those members
        (stored ones and those inside a team run), and naming a team or members takes
        the members' runs in (``skip_member_messages`` applies only without them)."""
        members = set(member_ids or ())
        runs: list[RunOutput] = list(self.runs or ())
        if agent_id:
            runs = [r for r in runs if r.agent_id == agent_id]
        if team_id:
            runs = [r for r in runs if r.team_id == team_id]
        if members:
            runs = _member_runs(runs, members)
        if skip_member_messages and not team_id and not members:
            runs = [r for r in runs if r.parent_run_id is None]
        return messages_of(
            runs, last_n_runs, limit, skip_roles, skip_statuses, skip_history_messages
        )

    def get_team_history(
        self, team_id: str | None = None, num_runs: int | None = None
    ) -> list[tuple[str, str]]:
        """(input, answer) of the completed runs, oldest first: the team's own runs, or
        with ``team_id`` every run of that team (a sub-team's too); the newest
        ``num_runs`` when given."""
        runs = [r for r in self.runs or () if RunStatus(r.status) is RunStatus.completed]
        if team_id is not None:
            runs = [r for r in runs if r.team_id == team_id]
        else:
            runs = [r for r in runs if r.parent_run_id is None]
        if num_runs is not None:
            runs = runs[-num_runs:] if num_runs > 0 else []
        return [
            (
                r.input.input_content_string() if r.input is not None else "",
                "" if r.content is None else r.get_content_as_string(),
            )
            for r in runs
        ]

    def get_team_history_context(
        self, team_id: str | None = None, num_runs: int | None = None
    ) -> str | None:
        """The team history as a ``<team_history_context>`` block (None when empty)."""
        history = self.get_team_history(team_id, num_runs)
        if not history:
            return None
        parts = ["<team_history_context>"]
        for number, (asked, answered) in enumerate(history, 1):
            parts.append(f"[run-{number}]")
            if asked:
                parts.append(f"input: {asked}")
            if answered:
                parts.append(f"response: {answered}")
            parts.append("")
        parts += ["</team_history_context>", ""]
        return "\n".join(parts)


def _member_runs(runs: Iterable[RunOutput], members: set[str]) -> list[RunOutput]:
    """The runs of ``members``, each once: stored member runs and those inside team runs."""
    found: dict[str, RunOutput] = {}
    for run in runs:
        inner = [run] if run.agent_id in members else run.member_responses or []
        for member_run in inner:
            if member_run.agent_id in members:
                found.setdefault(member_run.run_id, member_run)
    return list(found.values())
