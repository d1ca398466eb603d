"""A reminder agent for the scheduler tests: a scripted model that records each input
through a tool, so a fired run leaves its trace in the session's state."""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.models.base import Message
from core.models.scripted import ScriptedModel, Turn, tool_call
from core.schedule import Firing


def record(session_state: dict[str, Any], text: str) -> str:
    """Record a reminder that fired."""
    session_state.setdefault("fired", []).append(text)
    return "recorded"


def _turn(messages: list[Message], tools: list[dict[str, Any]]) -> Turn:
    last = messages[-1]
    if last.role == "user":
        return tool_call("record", text=last.content or "")
    return "Reminder delivered."


def reminder_agent(db: BaseDb) -> Agent:
    """An agent whose every run records its input in ``session_state["fired"]``."""
    return Agent(id="reminders", db=db, model=ScriptedModel([_turn] * 1000), tools=[record])


class AgentFirer:
    """The app's fire callback: run the agent on the schedule's session."""

    def __init__(self, db: BaseDb) -> None:
        self.agent = reminder_agent(db)
        self.firings: list[Firing] = []

    async def __call__(self, firing: Firing) -> None:
        self.firings.append(firing)
        schedule = firing.schedule
        text = schedule.input if firing.note is None else f"{schedule.input} {firing.note}"
        await self.agent.arun(text, session_id=schedule.session_id, user_id=schedule.user_id)
