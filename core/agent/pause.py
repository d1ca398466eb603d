"""Resuming a run paused for confirmation: who decided what, and the run's saved place."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core.agent.loop import Resume
from core.models.base import ToolCall
from core.run.history import message_from_dict
from core.run.output import RunOutput


def resume_of(
    paused: Mapping[str, Any], approved: Iterable[str], rejected: Iterable[str]
) -> Resume:
    """The Resume for a stored paused run; ValueError unless every call is decided once.

    A call is named by its tool call id or, when that is unambiguous, its tool name.
    """
    pending = [ToolCall(p["id"], p["name"], p["arguments"]) for p in paused["pending"]]
    yes = _resolve(pending, approved, "approved")
    no = _resolve(pending, rejected, "rejected")
    both = yes & no
    if both:
        raise ValueError(f"tool calls both approved and rejected: {sorted(both)}")
    undecided = [c for c in pending if c.id not in yes | no]
    if undecided:
        names = ", ".join(f"{c.name} ({c.id})" for c in undecided)
        raise ValueError(f"decide every waiting tool call; undecided: {names}")
    return Resume(
        messages=[message_from_dict(m) for m in paused["messages"]],
        round=int(paused["round"]),
        pending=pending,
        approved=frozenset(yes),
    )


def _resolve(pending: list[ToolCall], names: Iterable[str], what: str) -> set[str]:
    ids: set[str] = set()
    for name in names:
        matches = [c.id for c in pending if name in (c.id, c.name)]
        if not matches:
            known = ", ".join(f"{c.name} ({c.id})" for c in pending)
            raise ValueError(f"{what} {name!r} is not a waiting tool call; waiting: {known}")
        if len(matches) > 1 and name not in matches:
            raise ValueError(f"{what} {name!r} names several waiting calls; use their ids")
        ids.update(matches if name not in matches else [name])
    return ids


def decisions_of(
    run_response: RunOutput, approved: Iterable[str], rejected: Iterable[str]
) -> tuple[list[str], list[str]]:
    """Agno's way: ``confirmed`` set on each of the paused output's waiting calls."""
    yes, no = list(approved), list(rejected)
    for tool in run_response.tools_requiring_confirmation:
        if tool.confirmed is True:
            yes.append(tool.tool_call_id)
        elif tool.confirmed is False:
            no.append(tool.tool_call_id)
    return yes, no
