"""A team's members: finding them, listing them for the leader, delegating to them.

Delegation is a tool the leader's model calls. The member runs on the team's open
session handle, so it reads and writes the team's one ``session_state``; whatever it
changes (including deleted keys) is live for the leader's next model call and for any
later member, and is saved at the leader's next persistence point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from core.run.output import RunOutput
from core.state.session import SessionHandle
from core.tools.function import Function

DELEGATE_TOOL = "delegate_task_to_member"


@runtime_checkable
class Member(Protocol):
    """What a team member must offer: an id and a run on someone else's session."""

    id: str
    name: str | None
    description: str | None

    async def arun_on_session(
        self, handle: SessionHandle, input: str, **kwargs: Any
    ) -> RunOutput: ...


def check_members(members: Sequence[Any]) -> list[Member]:
    """The members, validated: each runnable on a session, ids unique."""
    checked: list[Member] = []
    seen: set[str] = set()
    for member in members:
        if not callable(getattr(member, "arun_on_session", None)) or not hasattr(member, "id"):
            raise TypeError(f"not a team member: {member!r} (expected an Agent or a Team)")
        if member.id in seen:
            raise ValueError(f"two team members have the id {member.id!r}")
        seen.add(member.id)
        checked.append(member)
    return checked


def find_member(members: Sequence[Member], key: str) -> Member:
    """The member whose id or name is ``key`` (names compared case-insensitively)."""
    wanted = key.strip()
    for member in members:
        if member.id == wanted:
            return member
    for member in members:
        if member.name and member.name.lower() == wanted.lower():
            return member
    known = ", ".join(m.id for m in members) or "none"
    raise ValueError(f"no team member {key!r}; members: {known}")


def members_prompt(members: Sequence[Member]) -> str:
    """The part of the leader's system message that lists members and how to delegate."""
    lines = []
    for member in members:
        about = member.description or getattr(member, "role", None) or ""
        label = f"- id: {member.id}"
        if member.name:
            label += f", name: {member.name}"
        lines.append(f"{label}{f' — {about}' if about else ''}")
    listed = "\n".join(lines)
    return (
        f"You lead a team. Give work to a member with the {DELEGATE_TOOL} tool "
        "(member_id and a task with every detail the member needs). The members share "
        "this session's state: what a member changes is visible to you and to later members.\n"
        f"<team_members>\n{listed}\n</team_members>"
    )


def delegate_function(
    members: Sequence[Member],
    handle: SessionHandle,
    *,
    dependencies: Mapping[str, Any],
    metadata: Mapping[str, Any],
    injected: Mapping[str, Any],
    on_member_output: Callable[[RunOutput], None],
) -> Function:
    """The delegation tool for one run, bound to that run's session handle."""

    async def delegate_task_to_member(member_id: str, task: str) -> str:
        """Give a task to one team member and return its answer.

        Args:
            member_id: The member's id (or name) from the team member list.
            task: What the member should do, with every detail it needs.
        """
        member = find_member(members, member_id)
        output = await member.arun_on_session(
            handle, task, dependencies=dependencies, metadata=metadata, injected=injected
        )
        on_member_output(output)
        return output.content or f"{member.name or member.id} finished without a reply."

    return Function(delegate_task_to_member)
