"""Every seed example that needs no network runs with ``agno`` -> ``core`` in its imports.

The examples in ``examples/`` are the seed documents' code with only the imports
changed. Each runs as a script in a fresh directory, its ``OpenAIChat`` reaching a
local OpenAI-compatible server (through the real ``openai`` client) that plays the
model's side; the tests then check the state the seed promises.
"""

from __future__ import annotations

import json
import runpy
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.storage.sqlite import SqliteStorage
from core.testing import tool_call
from core.testing.openai_server import FakeOpenAIServer

EXAMPLES = Path(__file__).parent / "examples"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeOpenAIServer]:
    """A fake model server the seeds reach through OPENAI_BASE_URL, cwd in a temp dir."""
    with FakeOpenAIServer() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.chdir(tmp_path)
        yield fake


def run_example(name: str, **init_globals: Any) -> dict[str, Any]:
    """Run one example as __main__ and return its globals."""
    return runpy.run_path(str(EXAMPLES / name), init_globals=init_globals, run_name="__main__")


def tool_results(request: dict[str, Any]) -> list[str]:
    """The tool-result messages the model was sent in one request."""
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def system_of(request: dict[str, Any]) -> str:
    """The system message of one request."""
    return next(m["content"] for m in request["messages"] if m["role"] == "system")


def printed_states(out: str, prefix: str) -> list[dict[str, Any]]:
    """States the example printed on lines starting with ``prefix``."""
    import ast

    return [
        ast.literal_eval(line.split(": ", 1)[1])
        for line in out.splitlines()
        if line.startswith(prefix)
    ]


def test_seed_000_customer_hook_creates_then_retrieves(server: FakeOpenAIServer) -> None:
    """The hook creates customer 789 in session_state, then retrieves it; the tool never runs."""
    server.extend(
        [
            tool_call("process_customer_request", customer_id="789", action="create", name="Tom"),
            tool_call("process_customer_request", customer_id="789", action="retrieve"),
            "Created and retrieved Tom.",
        ]
    )
    run_example("seed000_dynamic_session_state.py")
    assert '"123": {"name": "Jane Doe"}' in system_of(server.requests[0])
    assert tool_results(server.requests[1]) == ["Success! Customer 789 has been created."]
    assert tool_results(server.requests[2])[-1] == 'Profile for 789: {"name": "Tom"}'
    assert "This should not be seen." not in json.dumps(server.requests)


def test_seed_001_add_item_streams_and_keeps_state(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Parallel add_item calls over a streamed response land in the SQLite-backed state."""
    server.extend([[tool_call("add_item", item=i) for i in ("milk", "eggs", "bread")], "Done!"])
    scope = run_example("seed001_add_item.py")
    assert scope["agent"].get_session_state() == {"shopping_list": ["milk", "eggs", "bread"]}
    assert "Done!" in capsys.readouterr().out
    assert all(r["stream"] for r in server.requests)
    assert "Current state (shopping list) is: []" in system_of(server.requests[0])


def test_seed_001_shopping_manager_state_after_each_input(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The five-turn shopping conversation leaves the expected list after every input."""
    add, remove = "add_item", "remove_item"
    server.extend(
        [
            [
                tool_call(add, item="milk"),
                tool_call(add, item="eggs"),
                tool_call(add, item="bread"),
            ],
            "Added.",
            tool_call(remove, item="Bread"),
            "Removed bread.",
            [tool_call(add, item="apples"), tool_call(add, item="oranges")],
            "Added.",
            tool_call("list_items"),
            "Here is your list.",
            [tool_call(remove, item=i) for i in ("milk", "eggs", "apples", "oranges")]
            + [tool_call(add, item="bananas"), tool_call(add, item="yogurt")],
            "Started over.",
        ]
    )
    run_example("seed001_shopping_manager.py")
    states = printed_states(capsys.readouterr().out, "Session state:")
    assert [s["shopping_list"] for s in states] == [
        ["milk", "eggs", "bread"],
        ["milk", "eggs"],
        ["milk", "eggs", "apples", "oranges"],
        ["milk", "eggs", "apples", "oranges"],
        ["bananas", "yogurt"],
    ]
    assert tool_results(server.requests[7]) == [
        "Current shopping list:\n- milk\n- eggs\n- apples\n- oranges"
    ]


def test_seed_001_agentic_state(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """enable_agentic_state lets the model set the list through update_session_state."""
    patch = {"shopping_list": ["milk", "eggs", "bread"]}
    server.extend([tool_call("update_session_state", updates=patch), "Added."])
    run_example("seed001_agentic_state.py")
    assert printed_states(capsys.readouterr().out, "Session state:") == [patch]
    tools = [t["function"]["name"] for t in server.requests[0]["tools"]]
    assert tools == ["update_session_state"]
    assert '{"shopping_list": []}' in system_of(server.requests[0])


def test_seed_001_state_in_instructions(server: FakeOpenAIServer) -> None:
    """{user_name} in the instructions is filled from the session state."""
    server.extend(["Your name is John."])
    run_example("seed001_state_in_instructions.py")
    assert system_of(server.requests[0]).startswith("Users name is John")


def test_seed_001_changing_state_on_run(server: FakeOpenAIServer) -> None:
    """session_id switches sessions; each later run loads that session's state."""
    server.extend(["a", "b", "c", "d"])
    run_example("seed001_changing_state_on_run.py")
    systems = [system_of(r) for r in server.requests]
    assert systems == [
        "Users name is John and age is 30",
        "Users name is John and age is 30",
        "Users name is Jane and age is 25",
        "Users name is Jane and age is 25",
    ]


def test_seed_001_overwriting_state(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """overwrite_db_session_state replaces the stored state with the run's."""
    server.extend(["Potatoes.", "43."])
    run_example("seed001_overwriting_state.py")
    assert printed_states(capsys.readouterr().out, "Stored session state:") == [
        {"shopping_list": ["Potatoes"]},
        {"secret_number": 43},
    ]


def test_seed_002_state_survives_a_restart_with_sqlite_storage(
    server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """agent.state with SqliteStorage persists: a second process run counts session 2."""
    server.extend(["Hello!", "Hello again!"])
    run_example("seed002_storage_persistence.py")
    run_example("seed002_storage_persistence.py")
    assert capsys.readouterr().out.count("Welcome, new user!") == 2  # it never sets user_name
    stored = Agent(
        session_id="user_123_session",
        storage=SqliteStorage(table_name="agent_sessions", db_file="data.db"),
    )
    assert stored.get_session_state() == {"last_interaction": "2023-10-15", "session_count": 2}


def test_seed_002_tools_as_written_fail_cleanly_and_change_nothing(
    server: FakeOpenAIServer,
) -> None:
    """The seed's tools use datetime unimported: the model gets the error, state is kept."""
    server.extend(
        [[tool_call("counter_tool")] * 3, "Oops.", tool_call("get_user_stats_tool"), "Stats."]
    )
    scope = run_example("seed002_state_aware_tools.py")
    assert all("NameError" in r for r in tool_results(server.requests[1]))
    assert "'counter_value': 0" in tool_results(server.requests[3])[0]
    assert scope["agent"].get_session_state() == {}


def test_seed_002_state_aware_tools_count(server: FakeOpenAIServer) -> None:
    """With datetime available, three counter calls leave counter 3 and the stats show it."""
    server.extend(
        [[tool_call("counter_tool")] * 3, "Done.", tool_call("get_user_stats_tool"), "Stats."]
    )
    scope = run_example("seed002_state_aware_tools.py", datetime=datetime)
    assert tool_results(server.requests[1]) == [f"Counter incremented to: {i}" for i in (1, 2, 3)]
    assert "'counter_value': 3" in tool_results(server.requests[3])[0]
    assert scope["agent"].get_session_state()["counter"] == 3


def test_seed_004_taskboard_conversation(server: FakeOpenAIServer) -> None:
    """The seed's Taskboard: add two tasks, list, start one, summarize; state after each turn."""
    scope = run_example("seed004_taskboard.py")
    board: Agent = scope["taskboard"]
    session = "taskboard-thread"

    def turn(message: str, *calls: Any) -> dict[str, Any]:
        server.extend([list(calls), "ok"])
        board.run(message, session_id=session, user_id="u1")
        return board.get_session_state(session)

    state = turn(
        "add a task: review the Q2 roadmap, category: work",
        tool_call("add_task", title="Review the Q2 roadmap", category="work"),
    )
    assert state["tasks"] == [{"id": 1, "title": "Review the Q2 roadmap", "status": "open"}]
    state = turn(
        "add a task: book dentist appointment, category: personal",
        tool_call("add_task", title="Book dentist appointment", category="personal"),
    )
    assert [t["id"] for t in state["tasks"]] == [1, 2]
    turn("show me my tasks", tool_call("list_tasks"))
    assert "Review the Q2 roadmap" in tool_results(server.requests[-1])[0]
    state = turn(
        "mark task #1 as in_progress",
        tool_call("update_task_status", task_id=1, status="in_progress"),
    )
    assert state["tasks"][0]["status"] == "in_progress"
    turn("summarize what I've got open", tool_call("get_summary"))
    assert tool_results(server.requests[-1])
    assert '"in_progress"' in system_of(server.requests[-1])  # state in context every turn
