"""Team modes (Agno's ``Team(mode=...)``): how the leader works with its members.

- ``coordinate`` (default): the leader delegates tasks to the members it picks with
  ``delegate_task_to_member`` and writes the answer from what they return.
- ``route``: the leader picks one member with ``delegate_task_to_member`` and that
  member's answer *is* the team's answer: the leader's model is not called again
  (Agno's ``respond_directly=True``).
- ``collaborate`` (Agno 2.x calls it ``broadcast``; ``delegate_to_all_members=True``):
  the leader gives one task to every member with ``delegate_task_to_all_members``, and
  writes the answer from all their replies. Members run one after another, in member
  order, because they share one live session state (see docs/teams-and-workflows.md).

Agno's ``tasks`` mode (an autonomous task list) is not built and is refused with a
ValueError naming it, as is any other name. :class:`TeamMode` is Agno's enum of the
names (``core.team.mode.TeamMode``, Agno's path); a string works too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any

from core.models.base import Message, Model, ModelResponse

COORDINATE, ROUTE, COLLABORATE = "coordinate", "route", "collaborate"
_ALIASES = {"broadcast": COLLABORATE}
_SUPPORTED = "'coordinate', 'route' or 'broadcast' (also called 'collaborate')"


class TeamMode(StrEnum):
    """Agno's team modes; ``tasks`` is named so Agno code imports, and is refused."""

    coordinate = "coordinate"
    route = "route"
    broadcast = "broadcast"
    tasks = "tasks"


def resolve_mode(mode: Any, *, respond_directly: bool, delegate_to_all_members: bool) -> str:
    """The team's mode: ``mode=`` wins, else Agno's two booleans, else coordinate."""
    if mode is None:
        if respond_directly and delegate_to_all_members:
            raise ValueError("respond_directly and delegate_to_all_members cannot both be True")
        if respond_directly:
            return ROUTE
        return COLLABORATE if delegate_to_all_members else COORDINATE
    name = str(getattr(mode, "value", mode)).strip().lower()
    name = _ALIASES.get(name, name)
    if name == "tasks":
        raise ValueError(
            "Team(mode='tasks') (Agno's autonomous task list) is not supported here; "
            f"use {_SUPPORTED}"
        )
    if name not in (COORDINATE, ROUTE, COLLABORATE):
        raise ValueError(f"unknown team mode {mode!r}; expected {_SUPPORTED}")
    return name


class RouteModel(Model):
    """The leader's model in route mode: once a member answered, that answer ends the run.

    The loop then asks the model for its next turn; instead of calling the real model,
    this returns the member's answer unchanged, so no second leader call is made and
    nothing is rewritten. Until a member answers it is the real model.
    """

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.id = inner.id
        #: member answers waiting to be returned as the team's answer
        self.answers: list[str] = []
        #: how many turns were answered here instead of by the model
        self.routed_turns = 0

    def _routed(self) -> ModelResponse | None:
        if not self.answers:
            return None
        content = "\n\n".join(self.answers)
        self.answers.clear()
        self.routed_turns += 1
        return ModelResponse(content=content)

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        """The member's answer if one is waiting, else the real model's turn."""
        return self._routed() or await self.inner.ainvoke(messages, tools)

    async def astream(
        self, messages: list[Message], tools: list[dict[str, Any]]
    ) -> AsyncIterator[str | ModelResponse]:
        """Streaming twin of :meth:`ainvoke`."""
        routed = self._routed()
        if routed is None:
            async for item in self.inner.astream(messages, tools):
                yield item
            return
        if routed.content:
            yield routed.content
        yield routed
