"""End to end: a tool schedules a run during a model turn; the scheduled run sees the
session's state as it is when it fires, not as it was when scheduled."""

from __future__ import annotations

import time
from typing import Any

from core.agent import Agent
from core.models.base import Message
from core.models.scripted import ScriptedModel, Turn, tool_call
from core.run.context import RunContext
from core.schedule import TARGET_KEY, Firing, Scheduler, schedules
from tests.core.schedule.conftest import FakeClock, World

SESSION = "slack:T1:C1:1700000000.000100"
TARGET = {"platform": "slack", "channel": "C1", "thread_ts": "1700000000.000100"}


def remind(run_context: RunContext, agent: Agent, seconds: int, task: str) -> str:
    """Remind the channel about a task later (a sync tool: it runs on a worker thread)."""
    reminder = schedules(run_context, agent).add(in_=seconds, input=f"reminder: {task}")
    return f"reminder {reminder.schedule_id} set"


def check_task(session_state: dict[str, Any], task: str) -> str:
    """What a reminder says, given the task's state now."""
    done = task in session_state.get("done", [])
    said = "already done, staying silent" if done else f"don't forget: {task}"
    session_state.setdefault("said", []).append(said)
    return said


def _turn(messages: list[Message], tools: list[dict[str, Any]]) -> Turn:
    last = messages[-1]
    if last.role != "user":
        return "ok"
    text = last.content or ""
    if text.startswith("reminder: "):
        return tool_call("check_task", task=text.removeprefix("reminder: "))
    return tool_call("remind", seconds=60, task=text)


async def test_a_reminder_scheduled_by_a_tool_fires_into_the_current_state(
    world: World,
) -> None:
    """Scheduled in a run, fired later: the run sees the task marked done meanwhile."""
    db = world.open()
    agent = Agent(
        id="taskboard",
        db=db,
        model=ScriptedModel([_turn] * 10),
        tools=[remind, check_task],
    )
    await agent.arun(
        "ship it", session_id=SESSION, user_id="slack:T1:U1", metadata={TARGET_KEY: TARGET}
    )
    await agent.arun(
        "pay rent", session_id=SESSION, user_id="slack:T1:U1", metadata={TARGET_KEY: TARGET}
    )
    await agent.aupdate_session_state({"done": ["ship it"]}, session_id=SESSION)

    targets: list[dict[str, Any]] = []

    async def fire(firing: Firing) -> None:
        targets.append(firing.schedule.target)
        schedule = firing.schedule
        await agent.arun(schedule.input, session_id=schedule.session_id, user_id=schedule.user_id)

    clock = FakeClock(time.time() + 61)
    assert await Scheduler(db, fire, clock=clock).run_once() == 2
    state = await agent.aget_session_state(SESSION)
    assert sorted(state["said"]) == ["already done, staying silent", "don't forget: pay rent"]
    assert targets == [TARGET, TARGET]
