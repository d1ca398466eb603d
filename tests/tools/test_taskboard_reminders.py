"""Due dates, reminders and the owner index of the Taskboard, run through the agent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.schedule import schedule_store
from tools.taskboard import create_agent, timed
from tools.taskboard.index import MAX_SESSIONS, my_tasks, note

SESSION = "slack:T1:C1:100.1"
ANA = "slack:T1:U1"
# Monday 23 November 2026, 10:00 UTC; the scheduling API runs on the same clock
NOW = 1795428000.0


@pytest.fixture
async def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Agent]:
    """A taskboard on SQLite whose tools read the clock at NOW."""
    monkeypatch.setattr(timed, "clock", lambda: NOW)
    db = SqliteDb(db_file=str(tmp_path / "board.db"))
    yield create_agent(db=db)
    await db.aclose()


async def tool(agent: Agent, name: str, **arguments: object) -> str:
    output = await agent.arun_tool(name, arguments, session_id=SESSION, user_id=ANA)
    return output.get_content_as_string()


async def test_add_with_due_and_overdue_listing(
    agent: Agent, monkeypatch: pytest.MonkeyPatch
) -> None:
    """add_task due=friday stores the time; after it passes the task is listed overdue."""
    assert await tool(agent, "add_task", title="Ship", due="friday") == (
        "Added task #1: Ship (general, open, due Fri 27 Nov 09:00 UTC)."
    )
    await tool(agent, "add_task", title="Later", due="2026-12-24")
    assert await tool(agent, "list_overdue") == "Nothing is overdue."
    monkeypatch.setattr(timed, "clock", lambda: NOW + 5 * 86400)
    overdue = await tool(agent, "list_overdue")
    assert overdue.splitlines() == [
        "Overdue (1):",
        "- #1 [open] Ship (general, due Fri 27 Nov 09:00 UTC)",
    ]


async def test_set_due_reads_words_and_refuses_nonsense(agent: Agent) -> None:
    """set_due takes the user's words; unreadable ones change nothing."""
    await tool(agent, "add_task", title="Ship")
    assert await tool(agent, "set_due", task_id=1, when="tomorrow 5pm") == (
        "Task #1 (Ship) is due Tue 24 Nov 17:00 UTC."
    )
    before = await agent.aget_session_state(SESSION)
    assert "could not read 'whenever'" in await tool(agent, "set_due", task_id=1, when="whenever")
    assert "There is no task #7" in await tool(agent, "set_due", task_id=7, when="friday")
    assert await agent.aget_session_state(SESSION) == before


async def test_remind_schedules_a_command_run_and_done_cancels_it(agent: Agent) -> None:
    """A reminder is a schedule of /task_reminder on this session; done cancels it."""
    await tool(agent, "add_task", title="Ship")
    assert await tool(agent, "remind", task_id=1, when="in 2 hours") == (
        "I will remind you about task #1 (Ship) on Mon 23 Nov 12:00 UTC."
    )
    store = schedule_store(agent.db)  # type: ignore[arg-type]
    [scheduled] = await store.alist(SESSION)
    [reminder] = (await agent.aget_session_state(SESSION))["tasks"][0]["reminders"]
    assert scheduled.input == f"/task_reminder 1 {reminder['rid']}"
    assert scheduled.nominal_at == NOW + 7200
    assert scheduled.user_id == ANA and scheduled.owner_id == "taskboard"
    done = await tool(agent, "update_task_status", task_id=1, status="done")
    assert done == "Task #1 (Ship): open → done. Its reminder was cancelled."
    assert await store.alist(SESSION) == []
    assert "already done; no reminder was set" in await tool(
        agent, "remind", task_id=1, when="in 1h"
    )


async def test_remove_cancels_reminders(agent: Agent) -> None:
    """Removing a task cancels every reminder it had."""
    await tool(agent, "add_task", title="Ship")
    await tool(agent, "remind", task_id=1, when="in 1 hour")
    await tool(agent, "remind", task_id=1, when="tomorrow 9am")
    assert await tool(agent, "remove_task", task_id=1) == (
        "Removed task #1: Ship. Its reminders were cancelled."
    )
    assert await schedule_store(agent.db).alist(SESSION) == []  # type: ignore[arg-type]


async def test_reminder_at_fire_time_reads_the_current_state(agent: Agent) -> None:
    """task_reminder names the task, says when it is already done, and forgets itself."""
    await tool(agent, "add_task", title="Ship", due="friday")
    await tool(agent, "remind", task_id=1, when="in 1 hour")
    [reminder] = (await agent.aget_session_state(SESSION))["tasks"][0]["reminders"]
    text = await tool(agent, "task_reminder", task_id=1, rid=reminder["rid"])
    assert text == "⏰ Reminder: task #1 Ship (open, due Fri 27 Nov 09:00 UTC)."
    assert "reminders" not in (await agent.aget_session_state(SESSION))["tasks"][0]
    await agent.aupdate_session_state(
        {"tasks": [{"id": 1, "title": "Ship", "category": "general", "status": "done"}]},
        SESSION,
    )
    assert await tool(agent, "task_reminder", task_id=1) == (
        "Reminder: task #1 (Ship) is already done."
    )
    assert await tool(agent, "task_reminder", task_id=9) == (
        "Reminder: task #9 is no longer on the board."
    )


async def test_bad_reminder_time_and_the_limit(agent: Agent) -> None:
    """A past time is refused; a task holds at most five reminders."""
    await tool(agent, "add_task", title="Ship")
    assert "already past" in await tool(agent, "remind", task_id=1, when="2020-01-01")
    for hours in range(1, 6):
        await tool(agent, "remind", task_id=1, when=f"in {hours} hours")
    assert "already has 5 reminders" in await tool(agent, "remind", task_id=1, when="in 9 hours")
    assert len(await schedule_store(agent.db).alist(SESSION)) == 5  # type: ignore[arg-type]


async def test_owner_index_lists_my_open_tasks_across_boards(agent: Agent) -> None:
    """Tasks Ana adds on two boards show in her overview; done ones and Bo's do not."""
    await tool(agent, "add_task", title="Ship")
    await tool(agent, "add_task", title="Done already")
    await tool(agent, "update_task_status", task_id=2, status="done")
    await agent.arun_tool("add_task", {"title": "Other board"}, session_id="s2", user_id=ANA)
    await agent.arun_tool("add_task", {"title": "Bo's"}, session_id="s2", user_id="slack:T1:U2")
    mine = await my_tasks(agent, ANA)
    assert sorted((m.session_id, m.task["title"]) for m in mine) == [
        ("s2", "Other board"),
        (SESSION, "Ship"),
    ]


async def test_owner_index_is_bounded(agent: Agent) -> None:
    """Past MAX_SESSIONS boards the least recently noted one is forgotten."""
    for n in range(MAX_SESSIONS + 1):
        await note(agent, ANA, f"board-{n}", float(n))
    index = await agent.aget_session_state(f"taskboard-index:{ANA}")
    assert len(index["sessions"]) == MAX_SESSIONS
    assert "board-0" not in index["sessions"] and f"board-{MAX_SESSIONS}" in index["sessions"]
