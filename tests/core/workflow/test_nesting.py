"""Step(workflow=...) nesting, Router ``step_choices``, content kept as is, RunOutput.status."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from core.db.in_memory import InMemoryDb
from core.run.output import RunStatus
from core.workflow import Router, Step, StepInput, StepOutput, Workflow


class Plan(BaseModel):
    """A structured step result."""

    meals: list[str]


def add(key: str) -> Any:
    """A function step appending ``key`` to state['trail'] and reporting it."""

    def step(step_input: StepInput, session_state: dict[str, Any]) -> str:
        session_state.setdefault("trail", []).append(key)
        return f"{key} after {step_input.previous_step_content}"

    step.__name__ = key
    return step


async def test_nested_workflow_runs_on_the_same_session_state() -> None:
    """A Step(workflow=...) runs the inner steps on the outer session's one state."""
    inner = Workflow("Inner", steps=[add("i1"), add("i2")], session_state={"inner_default": 1})
    outer = Workflow(
        "Outer",
        steps=[add("o1"), Step("nested", workflow=inner), add("o2")],
        db=InMemoryDb(),
    )
    output = await outer.arun("go", session_id="s")
    assert output.session_state == {"trail": ["o1", "i1", "i2", "o2"], "inner_default": 1}
    assert await outer.aget_session_state("s") == output.session_state
    nested = output.step_outputs["nested"]
    assert (nested.step_type, nested.content) == ("workflow", "i2 after i1 after o1 after None")
    assert [s.step_name for s in nested.steps] == ["i1", "i2"]
    assert output.content == "o2 after i2 after i1 after o1 after None"


async def test_nested_workflow_failure_undoes_the_whole_step() -> None:
    """An inner step that raises leaves the state as before the nested step."""

    def boom(session_state: dict[str, Any]) -> None:
        session_state["half"] = True
        raise RuntimeError("inner failed")

    inner = Workflow("Inner", steps=[add("i1"), boom])
    outer = Workflow("Outer", steps=[add("o1"), Step("nested", workflow=inner)], db=InMemoryDb())
    with pytest.raises(RuntimeError, match="inner failed"):
        await outer.arun("go", session_id="s")
    assert await outer.aget_session_state("s") == {"trail": ["o1"]}


def test_step_needs_exactly_one_runner() -> None:
    """A Step refuses two runners, and a workflow= that is not a Workflow."""
    with pytest.raises(ValueError, match="workflow="):
        Step("x", executor=add("a"), workflow=Workflow("W", steps=[add("b")]))
    with pytest.raises(TypeError, match="is not a Workflow"):
        Step("x", workflow=object())


async def test_router_selector_gets_step_choices() -> None:
    """A selector declaring ``step_choices`` receives the Router's choices and may return one."""
    seen: list[list[str | None]] = []

    def selector(step_input: StepInput, step_choices: list[Any]) -> Any:
        seen.append([c.name for c in step_choices])
        return step_choices[1]

    workflow = Workflow("W", steps=[Router(selector, choices=[add("a"), add("b")])])
    output = await workflow.arun("go")
    assert seen == [["a", "b"]]
    assert output.session_state == {"trail": ["b"]}


async def test_workflow_keeps_pydantic_content_as_the_object() -> None:
    """A step returning a pydantic model: RunOutput.content is that model, text on request."""

    def plan() -> StepOutput:
        return StepOutput(content=Plan(meals=["soup"]))

    output = await Workflow("W", steps=[plan]).arun("go")
    assert output.content == Plan(meals=["soup"])
    assert output.get_content_as_string() == '{"meals":["soup"]}'


async def test_every_run_output_has_a_status() -> None:
    """Workflow, agent-less and nested runs report ``status`` completed (Agno's RunStatus)."""
    output = await Workflow("W", steps=[add("a")]).arun("go")
    assert output.status is RunStatus.completed
    assert output.status == "COMPLETED" and RunStatus("completed") is RunStatus.completed
    assert not output.is_paused


async def test_callable_dependencies_are_resolved_for_function_steps() -> None:
    """A workflow's callable dependency is called per run; steps see its value."""
    from core.run.context import RunContext
    from core.workflow.workflow import Workflow as Flow

    calls: list[int] = []

    def counter() -> int:
        calls.append(1)
        return len(calls)

    def step(run_context: RunContext) -> str:
        return f"n={run_context.dependencies['n']}"

    flow = Flow("deps", steps=[step], dependencies={"n": counter})
    assert (await flow.arun("go", session_id="s")).content == "n=1"
    assert (await flow.arun("go", session_id="s")).content == "n=2"
