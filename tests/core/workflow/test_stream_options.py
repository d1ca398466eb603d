"""Workflow(stream=, stream_events=, stream_executor_events=): Agno's run defaults and filter."""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.run.output import RunOutput
from core.testing import ScriptedModel
from core.workflow import Step, Workflow


def count(session_state: dict[str, Any]) -> str:
    """A function step that counts its runs in the state."""
    session_state["n"] = session_state.get("n", 0) + 1
    return f"n={session_state['n']}"


def flow(**options: Any) -> Workflow:
    """A function step, then an agent step."""
    agent = Agent(name="Writer", model=ScriptedModel(["Written.", "Written."]))
    return Workflow(
        "Flow", steps=[Step("count", executor=count), Step("write", agent=agent)], **options
    )


def test_executor_events_false_keeps_workflow_and_step_events_and_terminal_ones() -> None:
    """The agent's started and content events are left out; its RunCompleted still comes."""
    events = list(flow(stream_executor_events=False).run("go", stream=True, stream_events=True))
    assert [e.event for e in events] == [
        "WorkflowStarted",
        "StepStarted",
        "StepCompleted",
        "StepStarted",
        "RunCompleted",
        "StepCompleted",
        "WorkflowCompleted",
    ]
    assert events[-1].content == "Written."
    assert events[-1].session_state == {"n": 1}


def test_executor_events_default_true_streams_the_agent_events() -> None:
    """Without the option an agent step's own events are streamed, as before."""
    names = [e.event for e in flow().run("go", stream=True, stream_events=True)]
    assert "RunStarted" in names and "RunContent" in names


def test_stream_default_from_the_workflow() -> None:
    """Workflow(stream=True): run() without stream= streams; stream=False still returns."""
    workflow = flow(stream=True, stream_events=True)
    events = list(workflow.run("go"))
    assert events[0].event == "WorkflowStarted"
    assert events[-1].event == "WorkflowCompleted"
    assert isinstance(workflow.run("go", stream=False), RunOutput)


async def test_stream_default_applies_to_arun() -> None:
    """The async door reads the same defaults."""
    workflow = flow(stream=True)
    events = [e async for e in workflow.arun("go")]
    assert events[-1].event == "WorkflowCompleted"
    assert [e.event for e in events].count("WorkflowStarted") == 0  # no stream_events asked
