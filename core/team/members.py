"""A team's members: finding them, listing them for the leader, delegating to them.

Delegation is a tool the leader's model calls (which tool, and what becomes of the
member's answer, depends on the team's mode: :mod:`core.team.modes`). The member runs
on the team's open session handle, so it reads and writes the team's one
``session_state``; whatever it changes (including deleted keys) is live for the
leader's next model call and for any later member, and is saved at the leader's next
persistence point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from core.run.output import RunOutput
from core.state.session import SessionHandle
from core.team.modes import COLLABORATE, COORDINATE, ROUTE
from core.tools.function import Function

DELEGATE_TOOL = "delegate_task_to_member"
DELEGATE_ALL_TOOL = "delegate_task_to_all_members"


@runtime_checkable
class Member(Protocol):
    """What a team member must offer: an id and a run on someone else's session."""

    id: str
    name: str | None
    description: str | None
    #: the member's default state, merged into the team's template
    session_state: dict[str, Any]

    async def arun_on_session(
        self, handle: SessionHandle, input: str, **kwargs: Any
    ) -> RunOutput: ...


def check_members(members: Sequence[Any]) -> list[Member]:
    """The members, validated: each runnable on a session, ids unique."""
    checked: list[Member] = []
    seen: set[str] = set()
    for member in members:
        if not isinstance(member, Member):
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


def _label(member: Member) -> str:
    label = f"- id: {member.id}"
    if member.name:
        label += f", name: {member.name}"
    # Agno shows a member's role to the leader; the description says more about it
    about = [x for x in (getattr(member, "role", None), member.description) if x]
    return f"{label}{' — ' + ' — '.join(about) if about else ''}"


_HOW = {
    COORDINATE: (
        f"You lead a team. Give work to a member with the {DELEGATE_TOOL} tool "
        "(member_id and a task with every detail the member needs), then answer from "
        "what the members return."
    ),
    ROUTE: (
        f"You route requests. Pick the one member best suited to the request and give it "
        f"to that member with the {DELEGATE_TOOL} tool (member_id and the task with every "
        "detail the member needs). The member's answer goes to the user as it is. Answer "
        "yourself only when no member fits."
    ),
    COLLABORATE: (
        f"You lead a team that works together. Give the task to every member at once with "
        f"the {DELEGATE_ALL_TOOL} tool (a task with every detail they need), then write "
        "the answer from all their replies."
    ),
}


def members_prompt(members: Sequence[Member], mode: str = COORDINATE) -> str:
    """The part of the leader's system message that lists members and how to delegate."""
    listed = "\n".join(_label(member) for member in members)
    return (
        f"{_HOW[mode]} The members share this session's state: what a member changes is "
        "visible to you and to later members.\n"
        f"<team_members>\n{listed}\n</team_members>"
    )


class Delegation:
    """One run's delegation: runs members on the run's session, records what they did."""

    __slots__ = (
        "_kwargs",
        "handle",
        "interactions",
        "members",
        "on_output",
        "share",
        "team_history",
    )

    def __init__(
        self,
        members: Sequence[Member],
        handle: SessionHandle,
        *,
        dependencies: Mapping[str, Any],
        metadata: Mapping[str, Any],
        injected: Mapping[str, Any],
        on_member_output: Callable[[Member, RunOutput], None],
        share_member_interactions: bool = False,
        team_history: Callable[[Member], str | None] | None = None,
    ) -> None:
        self.members = members
        self.handle = handle
        self._kwargs = {"dependencies": dependencies, "metadata": metadata, "injected": injected}
        self.on_output = on_member_output
        self.share = share_member_interactions
        #: (member label, task, answer) of this run, in order
        self.interactions: list[tuple[str, str, str]] = []
        #: the team's earlier runs for a member (add_team_history_to_members), or None
        self.team_history = team_history

    async def run(self, member: Member, task: str) -> str:
        """Run one member on the task; its answer (or a note that it gave none)."""
        label = member.name or member.id
        message = task
        if self.share and self.interactions:
            # Agno's share_member_interactions: members see this run's earlier exchanges
            earlier = "\n".join(
                f"- {who} was asked: {asked}\n  and answered: {answer}"
                for who, asked, answer in self.interactions
            )
            message = f"{task}\n\nEarlier in this run:\n{earlier}"
        history = self.team_history(member) if self.team_history is not None else None
        if history:
            message = f"{history}\n\n{message}"  # Agno's layout: the history, then the task
        output = await member.arun_on_session(self.handle, message, **self._kwargs)
        self.on_output(member, output)
        answer = output.get_content_as_string() or f"{label} finished without a reply."
        self.interactions.append((label, task, answer))
        return answer

    def delegate_function(self, on_answer: Callable[[str], None] | None = None) -> Function:
        """``delegate_task_to_member``: one member, picked by the leader."""

        async def delegate_task_to_member(member_id: str, task: str) -> str:
            """Give a task to one team member and return its answer.

            Args:
                member_id: The member's id (or name) from the team member list.
                task: What the member should do, with every detail it needs.
            """
            answer = await self.run(find_member(self.members, member_id), task)
            if on_answer is not None:
                on_answer(answer)
            return answer

        return Function(delegate_task_to_member)

    def delegate_all_function(self) -> Function:
        """``delegate_task_to_all_members``: every member, one after another."""

        async def delegate_task_to_all_members(task: str) -> str:
            """Give the same task to every team member and return all their answers.

            Args:
                task: What the members should do, with every detail they need.
            """
            answers = [
                f"=== {member.name or member.id} ===\n{await self.run(member, task)}"
                for member in self.members
            ]
            return "\n\n".join(answers)

        return Function(delegate_task_to_all_members)
