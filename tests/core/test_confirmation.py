"""requires_confirmation: the run pauses, is stored, and resumes once, from any process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.exceptions import RunError
from core.models.base import ToolCall
from core.run import RunStatus
from core.testing import ScriptedModel, tool_call
from core.tools import tool

ROOT = Path(__file__).resolve().parents[2]


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Add a task."""
    session_state.setdefault("tasks", []).append(title)
    return f"added {title}"


@tool(requires_confirmation=True)
def delete_tasks(session_state: dict[str, Any]) -> str:
    """Delete every task."""
    deleted = len(session_state.get("tasks", []))
    session_state["tasks"] = []
    return f"deleted {deleted} tasks"


def _agent(db: Any, turns: list[Any]) -> Agent:
    return Agent(model=ScriptedModel(turns), db=db, tools=[add_task, delete_tasks], id="board")


def _pausing_turns() -> list[Any]:
    return [
        [ToolCall("c1", "add_task", '{"title": "a"}'), ToolCall("c2", "delete_tasks", "{}")],
        "All cleared.",
    ]


async def test_a_run_pauses_with_the_state_saved_up_to_the_pause(tmp_path: Path) -> None:
    """Calls before the confirmation run and are saved; the waiting call is listed."""
    db = SqliteDb(db_file=tmp_path / "c.db")
    agent = _agent(db, _pausing_turns())
    out = await agent.arun("clear the board", session_id="s", user_id="u1")
    assert out.is_paused and out.content is None
    assert [(t.tool_name, t.tool_call_id) for t in out.tools_requiring_confirmation] == [
        ("delete_tasks", "c2")
    ]
    record = await db.aload("s")
    assert record is not None and record.state == {"tasks": ["a"]}
    session = await agent.aget_session("s")
    assert session is not None and session.runs[-1].status is RunStatus.paused
    await db.aclose()


async def test_approved_call_runs_and_the_run_finishes() -> None:
    """continue_run with the call approved runs it once and lets the model answer."""
    agent = _agent(None, _pausing_turns())
    paused = await agent.arun("clear the board", session_id="s")
    done = await agent.acontinue_run(paused.run_id, approved=["c2"], session_id="s")
    assert not done.is_paused and done.content == "All cleared."
    assert done.session_state == {"tasks": []}
    session = await agent.aget_session("s")
    assert session is not None and [r.status for r in session.runs] == [RunStatus.completed]
    assert [c.tool_name for c in session.runs[0].tools] == ["add_task", "delete_tasks"]


async def test_rejected_call_never_runs_and_the_model_is_told() -> None:
    """A rejected call leaves the state as it was; the model gets the refusal as the result."""
    agent = _agent(None, _pausing_turns())
    paused = await agent.arun("clear the board", session_id="s")
    done = await agent.acontinue_run(paused.run_id, rejected=["delete_tasks"], session_id="s")
    assert done.session_state == {"tasks": ["a"]}
    rejected = [t for t in done.tools if t.tool_name == "delete_tasks"]
    assert rejected and rejected[0].confirmed is False and "rejected" in rejected[0].result


async def test_agno_style_confirmed_flag_on_the_paused_output() -> None:
    """Setting ``confirmed`` on the paused output's tools works as in Agno."""
    agent = _agent(None, _pausing_turns())
    paused = await agent.arun("clear the board", session_id="s")
    for waiting in paused.tools_requiring_confirmation:
        waiting.confirmed = True
    done = await agent.acontinue_run(run_response=paused)
    assert done.session_state == {"tasks": []}


async def test_a_second_continue_is_refused_and_changes_nothing() -> None:
    """Resuming twice (a double click) applies once; the second says it is not waiting."""
    agent = _agent(None, _pausing_turns())
    paused = await agent.arun("clear the board", session_id="s")
    await agent.acontinue_run(paused.run_id, approved=["c2"], session_id="s")
    with pytest.raises(RunError, match="not waiting for a confirmation"):
        await agent.acontinue_run(paused.run_id, approved=["c2"], session_id="s")


async def test_every_waiting_call_must_be_decided() -> None:
    """An undecided call is a clear error and the run stays paused."""
    agent = _agent(None, _pausing_turns())
    paused = await agent.arun("clear the board", session_id="s")
    with pytest.raises(ValueError, match="undecided: delete_tasks"):
        await agent.acontinue_run(paused.run_id, session_id="s")
    session = await agent.aget_session("s")
    assert session is not None and session.runs[-1].status is RunStatus.paused


async def test_a_team_member_cannot_pause_so_the_call_is_refused() -> None:
    """Inside a team the call is not run and the model is told why (no silent run)."""
    from core.team import Team

    member = Agent(
        model=ScriptedModel([tool_call("delete_tasks"), "could not"]),
        tools=[delete_tasks],
        name="cleaner",
    )
    spec = member.loop_spec()
    assert spec.can_pause is False
    team = Team(members=[member], model=ScriptedModel(["ok"]))
    assert team.loop_spec({}).can_pause is False


async def test_a_paused_run_is_continued_by_another_process_exactly_once(tmp_path: Path) -> None:
    """Paused here, continued by a second Agent in another process: applied once."""
    db_file = tmp_path / "shared.db"
    db = SqliteDb(db_file=db_file)
    paused = await _agent(db, _pausing_turns()).arun("clear", session_id="s", user_id="u1")
    await db.aclose()
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        from core.db.sqlite import SqliteDb
        from core.exceptions import RunError
        from tests.core.test_confirmation import _agent

        async def main():
            db = SqliteDb(db_file={str(db_file)!r})
            agent = _agent(db, ["All cleared."])
            done = await agent.acontinue_run({paused.run_id!r}, approved=["c2"], session_id="s")
            print(done.content, flush=True)
            try:
                await agent.acontinue_run({paused.run_id!r}, approved=["c2"], session_id="s")
            except RunError:
                print("second refused", flush=True)
            await db.aclose()

        asyncio.run(main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["All cleared.", "second refused"]
    db = SqliteDb(db_file=db_file)
    record = await db.aload("s")
    assert record is not None and record.state == {"tasks": []}
    versions = [e.state for e in await db.ahistory("s", limit=50)]
    assert sum(1 for v in versions if v == {"tasks": []}) >= 1
    await db.aclose()


async def test_stop_after_tool_call_ends_the_run_with_the_result() -> None:
    """The model is not called again; the tool's result is the answer (Agno's show_result)."""

    @tool(stop_after_tool_call=True)
    def finish(session_state: dict[str, Any]) -> str:
        """Finish."""
        session_state["done"] = True
        return "all done"

    model = ScriptedModel([tool_call("finish")])  # a second model call would exhaust it
    out = await Agent(model=model, tools=[finish]).arun("go", session_id="s")
    assert out.content == "all done" and out.session_state == {"done": True}


async def test_show_result_puts_the_result_before_the_answer() -> None:
    """A show_result tool's output is shown as is, followed by the model's answer."""

    @tool(show_result=True)
    def report() -> str:
        """Report."""
        return "3 open tasks"

    model = ScriptedModel([tool_call("report"), "That is all."])
    out = await Agent(model=model, tools=[report]).arun("status?", session_id="s")
    assert out.content == "3 open tasks\n\nThat is all."
