"""A direct call (slash command) of a requires_confirmation tool pauses, then resumes once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.exceptions import RunError
from core.tools import tool


@tool(requires_confirmation=True)
def delete_tasks(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    tasks = session_state.setdefault("tasks", ["a", "b"])
    deleted = len(tasks) - keep
    session_state["tasks"] = tasks[:keep]
    return f"deleted {deleted} tasks"


def _agent(db: Any) -> Agent:
    return Agent(db=db, tools=[delete_tasks], id="board", session_state={"tasks": ["a", "b"]})


async def test_direct_call_pauses_and_runs_nothing(tmp_path: Path) -> None:
    """arun_tool of a confirmation tool returns a paused output; the state is untouched."""
    db = SqliteDb(db_file=tmp_path / "d.db")
    agent = _agent(db)
    out = await agent.arun_tool("delete_tasks", {"keep": 1}, session_id="s", user_id="u1")
    assert out.is_paused and out.content is None
    [waiting] = out.tools_requiring_confirmation
    assert (waiting.tool_name, waiting.tool_args) == ("delete_tasks", {"keep": 1})
    assert await agent.aget_session_state("s") == {"tasks": ["a", "b"]}


async def test_direct_pause_resumes_from_another_agent_once(tmp_path: Path) -> None:
    """Approval from a second agent on one store runs the call, no model needed; twice fails."""
    out = await _agent(SqliteDb(db_file=tmp_path / "d.db")).arun_tool(
        "delete_tasks", {"keep": 1}, session_id="s", user_id="u1"
    )
    other = _agent(SqliteDb(db_file=tmp_path / "d.db"))
    done = await other.acontinue_run(out.run_id, approved=["delete_tasks"], session_id="s")
    assert not done.is_paused and done.content == "deleted 1 tasks"
    assert await other.aget_session_state("s") == {"tasks": ["a"]}
    with pytest.raises(RunError, match="not waiting"):
        await other.acontinue_run(out.run_id, approved=["delete_tasks"], session_id="s")


async def test_direct_pause_rejected_runs_nothing(tmp_path: Path) -> None:
    """Rejecting a waiting direct call never runs it and says so."""
    agent = _agent(SqliteDb(db_file=tmp_path / "d.db"))
    out = await agent.arun_tool("delete_tasks", {}, session_id="s", user_id="u1")
    done = await agent.acontinue_run(out.run_id, rejected=["delete_tasks"], session_id="s")
    assert "rejected" in (done.content or "")
    assert await agent.aget_session_state("s") == {"tasks": ["a", "b"]}
