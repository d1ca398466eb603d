"""Internal tools (``@tool(internal=True)``): run directly, never offered to the model."""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from tools.taskboard import create_agent


@tool(internal=True)
def tick(session_state: dict[str, Any], by: int = 1) -> str:
    """Advance the counter (run by a schedule).

    Args:
        by: How much to add.
    """
    session_state["count"] = session_state.get("count", 0) + by
    return f"count is {session_state['count']}"


def add_note(session_state: dict[str, Any], text: str) -> str:
    """Add a note.

    Args:
        text: The note.
    """
    session_state.setdefault("notes", []).append(text)
    return "noted"


async def test_internal_tool_is_not_offered_and_a_model_call_of_it_changes_nothing() -> None:
    """The model sees only public tools; its call of an internal one is an error, undone."""
    model = ScriptedModel([tool_call("tick", by=5), "done"])
    agent = Agent(model=model, tools=[tick, add_note], session_state={"count": 0})
    output = await agent.arun("go", session_id="s1", user_id="u1")
    offered = [t["function"]["name"] for t in model.requests[0].tools]
    assert offered == ["add_note"]
    assert output.session_state["count"] == 0
    [execution] = output.tools
    assert execution.tool_name == "tick" and execution.error
    assert (await agent.aget_session_state("s1"))["count"] == 0


async def test_internal_tool_runs_when_called_directly() -> None:
    """A direct call (a scheduled run, a command the code makes) still runs it and saves."""
    agent = Agent(tools=[tick, add_note], session_state={"count": 0})
    output = await agent.arun_tool("tick", {"by": 2}, session_id="s1", user_id="u1")
    assert output.content == "count is 2"
    assert (await agent.aget_session_state("s1"))["count"] == 2
    assert tick.internal and tick(session_state={}, by=1) == "count is 1"


async def test_taskboard_reminder_tool_is_internal() -> None:
    """task_reminder (run by a due reminder) is not in the Taskboard model's tool list."""
    model = ScriptedModel(["ok"])
    await create_agent(model=model).arun("hi", session_id="s1", user_id="u1")
    offered = {t["function"]["name"] for t in model.requests[0].tools}
    assert "task_reminder" not in offered and "remind" in offered
