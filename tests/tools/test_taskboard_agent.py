"""The Taskboard agent through the real runtime: a conversation over several runs on SQLite."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from core.db.base import BaseDb
from core.exceptions import ToolArgumentError, UnknownToolError
from core.testing import ScriptedModel, tool_call
from tools.taskboard import TOOL_NAMES, create_agent
from tools.taskboard.agent import default_state

SESSION = "console:local:taskboard:main"


@pytest.fixture
async def sqlite_dbs(tmp_path: Path) -> AsyncIterator[Callable[[], BaseDb]]:
    """Opens SqliteDb objects on one file in tmp_path; all are closed after the test."""
    from core.db.sqlite import SqliteDb

    opened: list[BaseDb] = []

    def open_db() -> BaseDb:
        opened.append(SqliteDb(db_file=str(tmp_path / "taskboard.db")))
        return opened[-1]

    yield open_db
    for db in opened:
        await db.aclose()


async def test_conversation_over_several_runs_keeps_state_on_sqlite(
    sqlite_dbs: Callable[[], BaseDb],
) -> None:
    """Each run's tool calls land in SQLite and the next run (and a new process) sees them."""
    model = ScriptedModel(
        [
            # run 1: two tasks in one turn (parallel tool calls)
            [
                tool_call("add_task", title="Review Q2 roadmap", category="work"),
                tool_call("add_task", title="Book dentist appointment", category="personal"),
            ],
            "Added #1 and #2.",
            # run 2: start the first task
            tool_call("update_task_status", task_id=1, status="in_progress"),
            "Task #1 is in progress.",
            # run 3: a wrong category and a wrong id change nothing
            [
                tool_call("add_task", title="Gym", category="hobby"),
                tool_call("remove_task", task_id=42),
            ],
            "Those did not work.",
            # run 4: remove #2, add another: it gets #3, never #2 again
            tool_call("remove_task", task_id=2),
            tool_call("add_task", title="Water plants"),
            "Done.",
        ]
    )
    db = sqlite_dbs()
    agent = create_agent(model=model, db=db)

    first = await agent.arun("add two tasks", session_id=SESSION, user_id="u1")
    assert [t["title"] for t in first.session_state["tasks"]] == [
        "Review Q2 roadmap",
        "Book dentist appointment",
    ]
    assert first.session_state["next_task_id"] == 3
    assert await agent.aget_session_state(SESSION) == first.session_state

    second = await agent.arun("start the roadmap", session_id=SESSION, user_id="u2")
    assert second.session_state["tasks"][0]["status"] == "in_progress"
    # the system message of run 2 was filled from the state run 1 stored
    assert "Review Q2 roadmap" in model.requests[2].system

    stored_before = await agent.aget_session_state(SESSION)
    third = await agent.arun("add gym as hobby and drop #42", session_id=SESSION, user_id="u1")
    assert "Unknown category 'hobby'" in third.tools[0].result
    assert "There is no task #42" in third.tools[1].result
    assert await agent.aget_session_state(SESSION) == stored_before

    await agent.arun("drop the dentist, add water plants", session_id=SESSION, user_id="u1")
    state = await agent.aget_session_state(SESSION)
    assert [(t["id"], t["title"]) for t in state["tasks"]] == [
        (1, "Review Q2 roadmap"),
        (3, "Water plants"),
    ]
    assert state["next_task_id"] == 4
    assert model.remaining == 0

    # a restart: the store is closed, a new store and agent on the same file see the board
    await db.aclose()
    reopened = create_agent(model=ScriptedModel(), db=sqlite_dbs())
    assert await reopened.aget_session_state(SESSION) == state


async def test_bad_model_arguments_give_error_result_and_change_nothing(
    sqlite_dbs: Callable[[], BaseDb],
) -> None:
    """A task_id that is not a number reaches the model as an error; the state is unchanged."""
    model = ScriptedModel(
        [
            tool_call("add_task", title="One"),
            "ok",
            tool_call("update_task_status", task_id="first", status="done"),
            tool_call("update_task_status", _raw_arguments="{not json"),
            "sorry",
        ]
    )
    agent = create_agent(model=model, db=sqlite_dbs())
    await agent.arun("add one", session_id=SESSION)
    before = await agent.aget_session_state(SESSION)
    output = await agent.arun("finish it", session_id=SESSION)
    assert [t.error for t in output.tools] == [True, True]
    assert "task_id" in output.tools[0].result
    assert "not valid JSON" in output.tools[1].result
    assert output.content == "sorry"
    assert await agent.aget_session_state(SESSION) == before


async def test_schema_hides_session_state_and_documents_arguments() -> None:
    """The model sees the board's tools with documented arguments and no injected ones."""
    agent = create_agent()
    assert sorted(agent.functions) == sorted(TOOL_NAMES)
    assert {"set_due", "remind", "list_overdue"} <= set(agent.functions)
    for function in agent.functions.values():
        for injected in ("session_state", "run_context", "agent"):
            assert injected not in function.parameters["properties"]
        assert function.description
    add = agent.functions["add_task"].parameters
    assert add["required"] == ["title"]
    assert add["properties"]["category"]["description"].startswith("One of the board's")
    assert agent.functions["update_task_status"].parameters["properties"]["task_id"]["type"] == (
        "integer"
    )


async def test_direct_tool_calls_persist_like_model_calls(sqlite_dbs: Callable[[], BaseDb]) -> None:
    """arun_tool runs add/status/summary without a model and stores each change."""
    agent = create_agent(db=sqlite_dbs())
    added = await agent.arun_tool(
        "add_task", {"title": "Review Q2 roadmap", "category": "work"}, session_id=SESSION
    )
    assert added.content == "Added task #1: Review Q2 roadmap (work, open)."
    assert added.tools[0].error is False
    moved = await agent.arun_tool(
        "update_task_status", {"task_id": "1", "status": "done"}, session_id=SESSION
    )
    assert moved.content == "Task #1 (Review Q2 roadmap): open → done."
    summary = await agent.arun_tool("get_summary", {}, session_id=SESSION)
    assert (summary.content or "").startswith("1 task: 0 open, 0 in progress, 1 done.")
    stored = await agent.aget_session_state(SESSION)
    assert stored["tasks"] == [
        {"id": 1, "title": "Review Q2 roadmap", "category": "work", "status": "done"}
    ]


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("add_task", {"category": "work"}, ToolArgumentError),
        ("update_task_status", {"task_id": "one", "status": "done"}, ToolArgumentError),
        ("add_task", {"title": "x", "session_state": {}}, ToolArgumentError),
        ("delete_everything", {}, UnknownToolError),
    ],
)
async def test_direct_tool_call_with_bad_input_raises_and_loses_nothing(
    sqlite_dbs: Callable[[], BaseDb], name: str, arguments: dict[str, Any], error: type[Exception]
) -> None:
    """Missing or mistyped arguments and unknown tools raise clearly; the stored board is kept."""
    agent = create_agent(db=sqlite_dbs())
    await agent.arun_tool("add_task", {"title": "Keep me"}, session_id=SESSION)
    before = await agent.aget_session_state(SESSION)
    with pytest.raises(error):
        await agent.arun_tool(name, arguments, session_id=SESSION)
    assert await agent.aget_session_state(SESSION) == before


async def test_new_session_starts_from_default_board() -> None:
    """A session the agent has not seen starts as the default board, not another session's."""
    agent = create_agent()
    await agent.arun_tool("add_task", {"title": "Mine"}, session_id="a")
    fresh = await agent.arun_tool("list_tasks", {}, session_id="b")
    assert fresh.content == "The board is empty. Add a task with add_task."
    assert fresh.session_state == default_state()
