"""Condition, Router and Loop decisions driven by session state, persisted across runs."""

from __future__ import annotations

from typing import Any

import pytest

from core.run import RunContext
from core.workflow import Condition, Loop, Router, RouterSelectionError, Step, StepInput, Workflow


def count(name: str) -> Step:
    """A function step that counts its own runs in ``session_state['runs'][name]``."""

    def counter(session_state: dict[str, Any]) -> str:
        runs = session_state.setdefault("runs", {})
        runs[name] = runs.get(name, 0) + 1
        return f"{name} #{runs[name]}"

    return Step(name, executor=counter)


async def test_condition_follows_state_and_counters_persist_across_runs() -> None:
    """The evaluator reads a counter kept in state; steps run only while it allows."""

    def bump(run_context: RunContext) -> None:
        run_context.session_state["seen"] += 1

    def under_three(step_input: StepInput, run_context: RunContext) -> bool:
        return bool(run_context.session_state["seen"] < 3)

    workflow = Workflow(
        "W",
        steps=[bump, Condition(under_three, [count("greet")], name="early")],
        session_state={"seen": 0},
        session_id="s",
    )
    contents = [(await workflow.arun("hi")).content for _ in range(4)]

    assert contents == ["greet #1", "greet #2", None, None]
    assert await workflow.aget_session_state() == {"seen": 4, "runs": {"greet": 2}}


async def test_condition_not_met_passes_previous_content_through() -> None:
    """A skipped condition leaves the previous step's content as the run's content."""
    workflow = Workflow("W", steps=[lambda: "before", Condition(False, [count("never")])])
    output = await workflow.arun("go")
    assert output.content == "before"
    assert output.session_state == {}


async def test_router_seed_style_bool_selector_reads_state() -> None:
    """Seed 003's selector returns a bool: True runs the first choice, False the second."""

    def selector(step_input: StepInput, run_context: RunContext) -> bool:
        return bool(run_context.session_state["test"] == "test_1")

    workflow = Workflow(
        "W",
        steps=[Router(selector, [count("step_1"), count("step_2")], name="router_step")],
        session_state={"test": "test_1"},
        session_id="s",
    )
    assert (await workflow.arun("a")).content == "step_1 #1"
    await workflow.aupdate_session_state({"test": "other"})
    assert (await workflow.arun("b")).content == "step_2 #1"
    assert (await workflow.aget_session_state())["runs"] == {"step_1": 1, "step_2": 1}


@pytest.mark.parametrize(
    ("selection", "expected"),
    [("b", ["b"]), ("B", ["b"]), (1, ["b"]), (["a", "b"], ["a", "b"]), (None, [])],
)
async def test_router_maps_names_indexes_lists_and_none(
    selection: Any, expected: list[str]
) -> None:
    """A selector may return a name, an index, a list of them, or None for nothing."""
    workflow = Workflow("W", steps=[Router(lambda: selection, [count("a"), count("b")])])
    output = await workflow.arun("go")
    assert sorted(output.session_state.get("runs", {})) == expected


async def test_router_selector_may_return_a_step_chosen_from_state() -> None:
    """The selector returns one of its choices, picked by a mode kept in state."""
    fast, slow = count("fast"), count("slow")

    def pick(session_state: dict[str, Any]) -> Step:
        session_state["picks"] = session_state.get("picks", 0) + 1
        return fast if session_state["mode"] == "fast" else slow

    workflow = Workflow("W", steps=[Router(pick, [fast, slow])], session_state={"mode": "slow"})
    output = await workflow.arun("go")
    assert output.session_state == {"mode": "slow", "picks": 1, "runs": {"slow": 1}}


async def test_router_bad_selection_is_a_clear_error_and_changes_nothing() -> None:
    """An unknown name or index raises RouterSelectionError; the state is untouched."""

    def select(session_state: dict[str, Any]) -> str:
        session_state["touched"] = True
        return "missing"

    workflow = Workflow("W", steps=[Router(select, [count("a")])], session_state={"x": 1})
    with pytest.raises(RouterSelectionError, match="no choice named 'missing'; choices: 'a'"):
        await workflow.arun("go")
    assert await workflow.aget_session_state() == {"x": 1}
    with pytest.raises(RouterSelectionError, match="out of range"):
        await Workflow("W", steps=[Router(lambda: 5, [count("a")])]).arun("go")
    with pytest.raises(RouterSelectionError, match="fewer than two choices"):
        await Workflow("W", steps=[Router(lambda: True, [count("a")])]).arun("go")


async def test_loop_ends_when_the_end_condition_holds() -> None:
    """The end condition sees each iteration's outputs and the state; the loop stops on true."""
    seen: list[list[str]] = []

    def done(outputs: list[Any], session_state: dict[str, Any]) -> bool:
        seen.append([o.content for o in outputs])
        return bool(session_state["runs"]["tick"] >= 2)

    workflow = Workflow("W", steps=[Loop([count("tick")], end_condition=done, max_iterations=5)])
    output = await workflow.arun("go")
    assert seen == [["tick #1"], ["tick #2"]]
    assert output.content == "tick #2"
    assert len(output.step_outputs["loop"].steps) == 2


async def test_loop_stops_at_max_iterations() -> None:
    """Without a true end condition the loop runs exactly max_iterations times."""
    workflow = Workflow(
        "W", steps=[Loop([count("tick")], end_condition=lambda outputs: False, max_iterations=3)]
    )
    output = await workflow.arun("go")
    assert output.session_state == {"runs": {"tick": 3}}
    with pytest.raises(ValueError, match="at least 1"):
        Loop([count("tick")], max_iterations=0)


async def test_condition_else_steps_run_when_it_is_false() -> None:
    """Agno's ``else_steps``: the other branch, when the evaluator is false."""
    from core.workflow import Condition, Workflow

    def greet(session_state: dict) -> str:
        session_state["greeted"] = True
        return "Hello."

    def welcome_back() -> str:
        return "Welcome back."

    condition = Condition(
        evaluator=lambda session_state: not session_state.get("greeted"),
        steps=[greet],
        else_steps=[welcome_back],
    )
    workflow = Workflow("W", steps=[condition], session_state={})

    first = await workflow.arun("hi", session_id="s")
    second = await workflow.arun("hi", session_id="s")

    assert (first.content, second.content) == ("Hello.", "Welcome back.")
    assert second.session_state == {"greeted": True}
    assert second.step_outputs["condition"].steps[0].content == "Welcome back."


def test_condition_without_else_steps_keeps_passing_through() -> None:
    from core.workflow import Condition

    assert Condition(evaluator=False, steps=[lambda: "x"]).else_steps == []
