"""Workflow history to steps, run metadata, Steps groups: Agno's options, on every store."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.run import RunContext
from core.testing import ScriptedModel
from core.workflow import Step, StepInput, StepOutput, Steps, Workflow
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store

HISTORY_OF_FIRST = (
    "<workflow_history_context>\n[Workflow Run-1]\nUser input: first\n"
    "Workflow output: answer 1\n\n</workflow_history_context>\n"
)


def user_messages(model: ScriptedModel) -> list[str]:
    """The last user message of every call the model got."""
    return [[m.content for m in r.messages if m.role == "user"][-1] or "" for r in model.requests]


async def test_agent_steps_get_earlier_runs_before_their_message(store: BaseDb) -> None:
    """add_workflow_history_to_steps: the second run's agent sees run 1's input and output."""
    model = ScriptedModel(["answer 1", "answer 2"])
    flow = Workflow(
        name="w", db=store, add_workflow_history_to_steps=True, steps=[Agent(model=model)]
    )
    await flow.arun("first", session_id="s")
    again = Workflow(
        name="w", db=store, add_workflow_history_to_steps=True, steps=[Agent(model=model)]
    )
    output = await again.arun("second", session_id="s")
    assert output.content == "answer 2"
    assert user_messages(model) == ["first", HISTORY_OF_FIRST + "second"]


async def test_num_history_runs_bounds_the_runs_given(store: BaseDb) -> None:
    """Only the last num_history_runs completed runs are given, numbered from 1."""
    model = ScriptedModel(["a1", "a2", "a3"])
    flow = Workflow(
        name="w",
        db=store,
        add_workflow_history_to_steps=True,
        num_history_runs=1,
        steps=[Agent(model=model)],
    )
    for text in ("q1", "q2", "q3"):
        await flow.arun(text, session_id="s")
    last = user_messages(model)[-1]
    assert last == (
        "<workflow_history_context>\n[Workflow Run-1]\nUser input: q2\n"
        "Workflow output: a2\n\n</workflow_history_context>\nq3"
    )


async def test_a_steps_own_setting_wins_over_the_workflows() -> None:
    """Step(add_workflow_history=...) and its num_history_runs override the workflow's."""
    off, on = ScriptedModel(["x1", "x2"]), ScriptedModel(["y1", "y2"])
    flow = Workflow(
        name="w",
        add_workflow_history_to_steps=True,
        steps=[
            Step(name="off", agent=Agent(model=off), add_workflow_history=False),
            Step(name="on", agent=Agent(model=on), num_history_runs=5),
        ],
    )
    await flow.arun("one", session_id="s")
    await flow.arun("two", session_id="s")
    assert user_messages(off)[-1] == "two"
    assert user_messages(on)[-1].startswith("<workflow_history_context>\n[Workflow Run-1]\n")
    assert "Workflow output: y1" in user_messages(on)[-1]

    quiet = ScriptedModel(["z1", "z2"])
    only_step = Workflow(
        name="w2", steps=[Step(name="s", agent=Agent(model=quiet), add_workflow_history=True)]
    )
    await only_step.arun("one", session_id="t")
    await only_step.arun("two", session_id="t")
    assert "User input: one" in user_messages(quiet)[-1]


async def test_without_the_option_no_history_is_given() -> None:
    """By default (as in Agno) steps get no earlier runs."""
    model = ScriptedModel(["a", "b"])
    flow = Workflow(name="w", steps=[Agent(model=model)])
    await flow.arun("one", session_id="s")
    await flow.arun("two", session_id="s")
    assert user_messages(model) == ["one", "two"]


async def test_function_steps_read_the_history(store: BaseDb) -> None:
    """step_input.get_workflow_history() gives (input, output) pairs of earlier runs."""
    seen: list[Any] = []

    def remember(step_input: StepInput) -> StepOutput:
        seen.append(step_input.get_workflow_history(num_runs=2))
        seen.append(step_input.get_workflow_history_context(num_runs=1))
        return StepOutput(content=f"saw {step_input.input}")

    flow = Workflow(name="w", db=store, steps=[remember])
    for text in ("a", "b", "c"):
        await flow.arun(text, session_id="s")
    assert seen[-2] == [("a", "saw a"), ("b", "saw b")]
    assert seen[-1] == (
        "<workflow_history_context>\n[Workflow Run-1]\nUser input: b\n"
        "Workflow output: saw b\n\n</workflow_history_context>\n"
    )
    assert seen[0] == [] and seen[1] is None


async def test_workflow_metadata_merges_over_the_calls() -> None:
    """Workflow(metadata=) is merged into the run's metadata; the workflow's keys win."""
    seen: dict[str, Any] = {}

    def look(step_input: StepInput, run_context: RunContext) -> str:
        seen.update(run_context.metadata or {})
        return "ok"

    flow = Workflow(name="w", metadata={"team": "ops", "tags": {"a": 1}}, steps=[look])
    await flow.arun("go", metadata={"team": "dev", "who": "me", "tags": {"b": 2}})
    assert seen == {"team": "ops", "who": "me", "tags": {"a": 1, "b": 2}}
    assert flow.metadata == {"team": "ops", "tags": {"a": 1}}  # the template is not changed


def add(session_state: dict[str, Any], step_input: StepInput) -> str:
    """Append the previous content to the state's log."""
    session_state.setdefault("log", []).append(step_input.previous_step_content or "start")
    return f"{step_input.previous_step_content or ''}+"


async def test_steps_runs_its_group_in_order_and_saves_each(store: BaseDb) -> None:
    """Steps: a named group run in sequence; contents chain through it and past it."""
    flow = Workflow(name="w", db=store, steps=[Steps(name="group", steps=[add, add]), add])
    output = await flow.arun("go", session_id="s")
    assert output.content == "+++"
    assert output.step_outputs["group"].step_type == "steps"
    assert [s.content for s in output.step_outputs["group"].steps] == ["+", "++"]
    assert (await flow.aget_session_state(session_id="s")) == {"log": ["start", "+", "++"]}


async def test_an_empty_steps_group_and_a_confirmation_request() -> None:
    """An empty group answers as Agno's does; requires_confirmation is refused, not ignored."""
    output = await Workflow(name="w", steps=[Steps(name="g", steps=[])]).arun("go")
    assert output.content == "No steps to execute"
    with pytest.raises(ValueError, match="requires_confirmation is not supported"):
        Steps(name="g", steps=[add], requires_confirmation=True)


def test_agno_paths_for_workflow_names() -> None:
    """Steps, WorkflowRunOutputEvent and TeamRunOutputEvent import from Agno's paths."""
    from core.run.events import RunOutputEvent
    from core.run.team import TeamRunOutputEvent
    from core.run.workflow import WorkflowRunOutputEvent
    from core.workflow.steps import Steps as AtPath

    assert AtPath is Steps
    assert WorkflowRunOutputEvent is RunOutputEvent and TeamRunOutputEvent is RunOutputEvent


def test_bad_history_counts_are_refused() -> None:
    """A negative or non-integer num_history_runs is a clear error."""
    with pytest.raises(ValueError, match="num_history_runs"):
        Workflow(name="w", steps=[add], num_history_runs=-1)
    with pytest.raises(ValueError, match="num_history_runs"):
        Step(executor=add, num_history_runs="3")  # type: ignore[arg-type]
