"""A team's earlier runs, given to its members and to its leader as Agno gives them.

- ``add_team_history_to_members=True``: each delegated task is preceded by the team's
  last ``num_team_history_runs`` completed runs (input and answer) in Agno's
  ``<team_history_context>`` block: the team session's runs for an agent member, and
  for a member that is itself a team the runs that team made (as in Agno). Members'
  own runs are not stored in the session's history here (only the team's are), so a
  member team gets none, and neither does a team that runs as a workflow step (its
  session's runs are the workflow's).
- ``num_history_messages``: the leader's history (``add_history_to_context``) is cut to
  the last that many messages of the earlier runs, instead of a number of runs; when
  ``num_history_runs`` is set too, it wins, as in Agno.

Both read the session's run history (:mod:`core.run.history`), which is bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agent.history_options import DEFAULT_HISTORY_RUNS
from core.run.history import SessionData
from core.state.session import SessionHandle

#: a history counted in messages reads every stored run (the store bounds how many)
ALL_RUNS = 1 << 30


def check_count(name: str, value: int | None) -> int | None:
    """A count option: None or a whole number of at least 0."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"{name} must be a whole number >= 0 or None, not {value!r}")
    return value


def leader_history_runs(
    add_history_to_context: bool, num_history_runs: int | None, num_history_messages: int | None
) -> int | None:
    """How many earlier runs the leader reads (None: no history)."""
    if not add_history_to_context:
        return None
    if num_history_runs is not None:
        return num_history_runs
    return ALL_RUNS if num_history_messages is not None else DEFAULT_HISTORY_RUNS


def leader_history_messages(
    num_history_runs: int | None, num_history_messages: int | None
) -> int | None:
    """The leader's history cut in messages (None: whole runs)."""
    return num_history_messages if num_history_runs is None else None


def team_history_context(
    data: SessionData, owner_id: str | None, num_runs: int | None
) -> str | None:
    """Agno's ``<team_history_context>`` block of the last completed runs.

    ``owner_id``: only that owner's runs (a member team's own); None: every run of the
    session (the team's own session, where every run is the team's).
    """
    runs = [r for r in data.completed() if owner_id is None or r.owner_id == owner_id]
    if num_runs is not None:
        runs = runs[-num_runs:] if num_runs > 0 else []
    if not runs:
        return None
    lines = ["<team_history_context>"]
    for number, run in enumerate(runs, 1):
        lines.append(f"[run-{number}]")
        if run.input:
            lines.append(f"input: {run.input}")
        if run.output:
            lines.append(f"response: {run.output}")
        lines.append("")
    lines.extend(["</team_history_context>", ""])
    return "\n".join(lines)


def member_history(
    handle: SessionHandle, team_id: str, team_kind: str, runs: int | None
) -> Callable[[Any], str | None]:
    """What each member of team ``team_id`` gets of its earlier runs in this session."""
    own_session = handle.meta.kind == team_kind

    def history(member: Any) -> str | None:
        # a member that is a team gets its own runs, as in Agno; an agent the team's
        if getattr(member, "kind", None) == team_kind:
            owner: str | None = member.id
        else:
            owner = None if own_session else team_id
        return team_history_context(handle.data, owner, runs)

    return history
