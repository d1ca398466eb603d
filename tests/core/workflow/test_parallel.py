"""Parallel branches: consistent copies of the state, merged key by key, conflicts refused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from core.workflow import Parallel, ParallelStateConflictError, Step, Workflow
from core.workflow.merge import merge_branch_states


def writer(name: str, change: Callable[[dict[str, Any]], None]) -> Step:
    """A branch step applying ``change`` to the state after yielding to the other branches."""

    async def step(session_state: dict[str, Any]) -> str:
        await asyncio.sleep(0)  # let sibling branches run in between
        change(session_state)
        return f"{name} done"

    return Step(name, executor=step)


async def run_parallel(start: dict[str, Any], *steps: Step) -> tuple[Workflow, Any]:
    """Run one Parallel of ``steps`` on a fresh workflow starting from ``start``."""
    workflow = Workflow("W", db=InMemoryDb(), steps=[Parallel(*steps)], session_state=start)
    return workflow, await workflow.arun("go", session_id="s")


async def test_branches_see_the_state_from_the_start_not_each_other() -> None:
    """Each branch reads the state as it was when the Parallel began."""
    seen: dict[str, Any] = {}

    def look(name: str) -> Step:
        def change(state: dict[str, Any]) -> None:
            seen[name] = dict(state["n"])
            state["n"][name] = True

        return writer(name, change)

    _, output = await run_parallel({"n": {}}, look("a"), look("b"))
    assert seen == {"a": {}, "b": {}}
    assert output.session_state == {"n": {"a": True, "b": True}}


async def test_starting_from_an_empty_state_different_keys_merge() -> None:
    """From {} two branches adding different keys (even a shared new dict) both survive."""
    workflow, output = await run_parallel(
        {},
        writer("a", lambda s: s.update(a=1, stats={"x": 1})),
        writer("b", lambda s: s.update(b=[2], stats={"y": 2})),
    )
    expected = {"a": 1, "b": [2], "stats": {"x": 1, "y": 2}}
    assert output.session_state == expected
    assert await workflow.aget_session_state("s") == expected
    assert output.step_outputs["parallel"].content == "=== a ===\na done\n\n=== b ===\nb done"


async def test_nested_dicts_merge_and_deletions_are_kept() -> None:
    """Changes to different nested keys merge; a key one branch deleted stays deleted."""
    start = {"user": {"name": "Ann", "prefs": {"tea": True}}, "old": 1, "keep": "k"}

    def rename(s: dict[str, Any]) -> None:
        s["user"]["name"] = "Anna"

    def prefer(s: dict[str, Any]) -> None:
        s["user"]["prefs"]["jam"] = True
        del s["old"]

    _, output = await run_parallel(start, writer("a", rename), writer("b", prefer))
    assert output.session_state == {
        "user": {"name": "Anna", "prefs": {"tea": True, "jam": True}},
        "keep": "k",
    }


async def test_lists_are_leaves() -> None:
    """One branch may change a list; two branches changing the same list conflict."""
    _, output = await run_parallel(
        {"items": ["milk"], "n": 0},
        writer("a", lambda s: s["items"].append("eggs")),
        writer("b", lambda s: s.update(n=1)),
    )
    assert output.session_state == {"items": ["milk", "eggs"], "n": 1}

    workflow = Workflow(
        "W",
        steps=[
            Parallel(
                writer("a", lambda s: s["items"].append("eggs")),
                writer("b", lambda s: s["items"].append("jam")),
            )
        ],
        session_state={"items": ["milk"]},
    )
    with pytest.raises(ParallelStateConflictError, match=r"session_state\['items'\]"):
        await workflow.arun("go")


async def test_overlapping_keys_conflict_and_nothing_is_persisted() -> None:
    """Two branches setting one leaf differently raise; the state stays as before the Parallel."""
    db = InMemoryDb()

    def before(session_state: dict[str, Any]) -> None:
        session_state["before"] = True

    workflow = Workflow(
        "W",
        db=db,
        session_id="s",
        steps=[
            before,
            Parallel(
                writer("a", lambda s: s.update(other="a", cfg={"mode": "a"})),
                writer("b", lambda s: s.update(cfg={"mode": "b"})),
            ),
        ],
        session_state={"cfg": {"mode": "start"}},
    )
    with pytest.raises(ParallelStateConflictError) as caught:
        await workflow.arun("go")
    assert caught.value.path == ["cfg", "mode"]
    assert caught.value.branches == ("a", "b")
    assert "'a' and 'b' both changed session_state['cfg']['mode']" in str(caught.value)
    assert await workflow.aget_session_state() == {"cfg": {"mode": "start"}, "before": True}


async def test_identical_changes_agree() -> None:
    """Two branches making the same change do not conflict."""
    _, output = await run_parallel(
        {"flag": False},
        writer("a", lambda s: s.update(flag=True)),
        writer("b", lambda s: s.update(flag=True)),
    )
    assert output.session_state == {"flag": True}


async def test_a_failing_branch_changes_nothing() -> None:
    """If any branch raises, no branch's changes are applied."""

    def boom(s: dict[str, Any]) -> None:
        raise RuntimeError("branch failed")

    workflow = Workflow(
        "W",
        steps=[Parallel(writer("a", lambda s: s.update(a=1)), writer("b", boom))],
        session_state={"x": 0},
    )
    with pytest.raises(RuntimeError, match="branch failed"):
        await workflow.arun("go")
    assert await workflow.aget_session_state() == {"x": 0}


def test_merge_rule_delete_against_change_is_a_conflict() -> None:
    """Deleting a key another branch changed is a conflict, not a silent loss."""
    with pytest.raises(ParallelStateConflictError, match="'one' and 'two'"):
        merge_branch_states({"k": 1}, [("one", {"k": 2}), ("two", {})])


def test_merge_rule_names_the_earlier_branch_among_many() -> None:
    """The conflict names the branch that first changed the leaf, not an unrelated one."""
    with pytest.raises(ParallelStateConflictError) as caught:
        branches = [("x", {"a": 0, "b": 1}), ("y", {"a": 5, "b": 0}), ("z", {"a": 6, "b": 0})]
        merge_branch_states({"a": 0, "b": 0}, branches)
    assert caught.value.branches == ("y", "z")


async def test_agent_branches_run_on_copies_and_merge() -> None:
    """Agents in parallel branches change different keys of one nested dict; both are kept."""

    def note(session_state: dict[str, Any], key: str) -> str:
        """Note a key.

        Args:
            key: The key.
        """
        session_state["notes"][key] = True
        return "noted"

    agents = [
        Agent(model=ScriptedModel([tool_call("note", key=k), f"noted {k}"]), name=k, tools=[note])
        for k in ("left", "right")
    ]
    workflow, output = await run_parallel({"notes": {}}, *[Step(a.name, agent=a) for a in agents])
    assert output.session_state == {"notes": {"left": True, "right": True}}
    assert await workflow.aget_session_state("s") == {"notes": {"left": True, "right": True}}
