"""``stream_events=True``: Agno's event names and fields for agents, teams and workflows."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.agent.streaming import stream_run
from core.db.in_memory import InMemoryDb
from core.run.events import (
    RunCompletedEvent,
    RunContentEvent,
    RunErrorEvent,
    RunEvent,
    RunPausedEvent,
    TeamRunEvent,
    ToolCallCompletedEvent,
    ToolCallStartedEvent,
    WorkflowRunEvent,
)
from core.run.output import RunOutput, RunStatus
from core.team import Team
from core.testing import ScriptedModel, tool_call
from core.workflow import Step, Workflow


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the list.

    Args:
        item: What to add.
    """
    session_state["items"].append(item)
    return f"added {item}"


def shopper(turns: list[Any]) -> Agent:
    """An agent with the add_item tool and a scripted model."""
    return Agent(
        model=ScriptedModel(turns), name="Shopper", tools=[add_item], session_state={"items": []}
    )


def test_agent_stream_events_in_order_with_tool_calls_and_state() -> None:
    """Started, tool call started/completed (name, args, result), content, completed with state."""
    agent = shopper([tool_call("add_item", item="milk"), "Added milk."])
    events = list(agent.run("add milk", stream=True, stream_events=True, session_id="s1"))
    assert [e.event for e in events] == [
        "RunStarted",
        "ToolCallStarted",
        "ToolCallCompleted",
        "RunContent",
        "RunCompleted",
    ]
    started, tool_started, tool_done, content, completed = events
    assert started.event == RunEvent.run_started and started.agent_id == "shopper"
    assert {e.run_id for e in events} == {completed.run_output.run_id}
    assert {e.session_id for e in events} == {"s1"}
    assert isinstance(tool_started, ToolCallStartedEvent)
    assert (tool_started.tool.tool_name, tool_started.tool.tool_args) == (
        "add_item",
        {"item": "milk"},
    )
    assert isinstance(tool_done, ToolCallCompletedEvent)
    assert tool_done.tool.result == tool_done.content == "added milk"
    assert isinstance(content, RunContentEvent) and content.content == "Added milk."
    assert isinstance(completed, RunCompletedEvent)
    assert completed.content == "Added milk."
    assert completed.session_state == {"items": ["milk"]}
    assert completed.run_output.status is RunStatus.completed
    assert agent.get_session_state("s1") == {"items": ["milk"]}


async def test_async_stream_events_match_sync() -> None:
    """``arun(stream=True, stream_events=True)`` yields the same events on the caller's loop."""
    agent = shopper([tool_call("add_item", item="tea"), "Tea."])
    names = [e.event async for e in agent.arun("tea", stream=True, stream_events=True)]
    assert names[0] == "RunStarted" and names[-1] == "RunCompleted"
    assert "ToolCallCompleted" in names


def test_stream_without_events_keeps_chunks_then_final() -> None:
    """``stream=True`` alone yields content chunks then one final event with the output."""
    agent = shopper([tool_call("add_item", item="milk"), "Added milk."])
    events = list(agent.run("add milk", stream=True))
    assert [type(e).__name__ for e in events] == ["RunContentEvent", "RunCompletedEvent"]
    assert [e.is_final for e in events] == [False, True]
    assert events[-1].run_output.session_state == {"items": ["milk"]}


def test_stream_events_needs_stream() -> None:
    """``stream_events=True`` without ``stream=True`` is refused, not ignored."""
    agent = shopper(["hi"])
    with pytest.raises(ValueError, match="stream_events=True needs stream=True"):
        agent.run("hi", stream_events=True)


def test_run_error_event_then_the_exception() -> None:
    """A failing run sends RunError (message and type) and still raises to the caller."""
    agent = shopper([RuntimeError("model down")])
    seen: list[Any] = []
    with pytest.raises(RuntimeError, match="model down"):
        for event in agent.run("hi", stream=True, stream_events=True):
            seen.append(event)
    assert [e.event for e in seen] == ["RunStarted", "RunError"]
    assert isinstance(seen[-1], RunErrorEvent)
    assert (seen[-1].content, seen[-1].error_type) == ("model down", "RuntimeError")


async def test_paused_output_ends_the_stream_with_run_paused() -> None:
    """A run that returns a paused RunOutput ends with RunPaused listing its tools."""
    agent = shopper([])

    async def paused_run(_sink: Any) -> RunOutput:
        return RunOutput(run_id="r", session_id="s", user_id=None, status=RunStatus.paused)

    events = [e async for e in stream_run(agent, paused_run, events=True)]
    assert [e.event for e in events] == ["RunPaused"]
    assert isinstance(events[0], RunPausedEvent) and events[0].run_output.is_paused


def test_team_stream_events_include_member_runs() -> None:
    """A team streams TeamRun* events around its member's Run* events; completed has the state."""
    member = shopper([tool_call("add_item", item="eggs"), "Eggs added."])
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="shopper", task="eggs"), "Done."]
    )
    team = Team(members=[member], model=leader, name="Crew")
    events = list(team.run("eggs", stream=True, stream_events=True))
    names = [e.event for e in events]
    assert names == [
        "TeamRunStarted",
        "TeamToolCallStarted",
        "RunStarted",
        "ToolCallStarted",
        "ToolCallCompleted",
        "RunCompleted",
        "TeamToolCallCompleted",
        "TeamRunContent",
        "TeamRunCompleted",
    ]
    assert events[0].team_id == "crew" and events[2].agent_id == "shopper"
    assert events[-1].event == TeamRunEvent.run_completed
    assert events[-1].session_state == {"items": ["eggs"]}
    assert events[-1].run_output.status is RunStatus.completed


def test_workflow_stream_events_report_steps() -> None:
    """A workflow streams WorkflowStarted, Step* around each step, WorkflowCompleted with state."""

    def count(session_state: dict[str, Any]) -> str:
        session_state["n"] = session_state.get("n", 0) + 1
        return f"n={session_state['n']}"

    agent = shopper(["Listed."])
    workflow = Workflow("Flow", steps=[Step("count", executor=count), Step("list", agent=agent)])
    events = list(workflow.run("go", stream=True, stream_events=True))
    names = [e.event for e in events]
    assert names == [
        "WorkflowStarted",
        "StepStarted",
        "StepCompleted",
        "StepStarted",
        "RunStarted",
        "RunContent",
        "RunCompleted",
        "StepCompleted",
        "WorkflowCompleted",
    ]
    assert events[2].step_name == "count" and events[2].content == "n=1"
    assert events[4].step_name == "list"  # the agent's events say which step they belong to
    assert events[-1].event == WorkflowRunEvent.workflow_completed
    assert events[-1].session_state == {"n": 1}
    assert events[-1].run_output.status is RunStatus.completed


def test_workflow_step_error_event() -> None:
    """A failing step sends StepError then WorkflowError, and the run still raises."""

    def boom() -> None:
        raise ValueError("bad step")

    workflow = Workflow("Flow", steps=[Step("boom", executor=boom)], db=InMemoryDb())
    seen: list[Any] = []
    with pytest.raises(ValueError, match="bad step"):
        seen.extend(workflow.run("go", stream=True, stream_events=True))
    assert [e.event for e in seen] == [
        "WorkflowStarted",
        "StepStarted",
        "StepError",
        "WorkflowError",
    ]


def test_print_response_stream_still_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """``print_response(stream=True)`` prints the streamed answer and returns the output."""
    agent = shopper(["Hello there."])
    output = agent.print_response("hi", stream=True)
    assert capsys.readouterr().out == "Hello there.\n"
    assert output.status is RunStatus.completed


def test_agno_import_paths() -> None:
    """Agno's module paths for events and statuses resolve to the same objects."""
    from core.run.agent import RunEvent as AgentRunEvent
    from core.run.base import RunStatus as BaseRunStatus
    from core.run.team import TeamRunEvent as TeamEvents
    from core.run.workflow import WorkflowCompletedEvent
    from core.run.workflow import WorkflowRunEvent as WorkflowEvents

    assert (AgentRunEvent, BaseRunStatus, TeamEvents) == (RunEvent, RunStatus, TeamRunEvent)
    assert WorkflowEvents.workflow_completed == "WorkflowCompleted"
    assert issubclass(WorkflowCompletedEvent, RunCompletedEvent)
