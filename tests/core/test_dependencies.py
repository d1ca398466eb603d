"""Callable dependencies resolved per run; dependencies and metadata in the system message."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.agent import Agent
from core.agent.prompt import PromptSpec, build_system_message
from core.run.context import RunContext
from core.tools.dependencies import DependencyError, resolve_dependencies


async def test_sync_and_async_callables_are_called_with_injected_values() -> None:
    """Callables are called (sync off the loop, async awaited); agent/run_context by name."""
    context = RunContext(run_id="r", session_id="s", user_id="u")

    def now() -> str:
        return "12:00"

    async def user_name(run_context: RunContext) -> str:
        await asyncio.sleep(0)
        return f"name-of-{run_context.user_id}"

    def owner(agent: Any) -> str:
        return str(agent)

    resolved = await resolve_dependencies(
        {"now": now, "user": user_name, "owner": owner, "plain": {"a": 1}},
        {"run_context": context, "agent": "the-agent"},
    )
    assert dict(resolved) == {
        "now": "12:00",
        "user": "name-of-u",
        "owner": "the-agent",
        "plain": {"a": 1},
    }
    with pytest.raises(TypeError):
        resolved["now"] = "x"  # type: ignore[index]


async def test_a_failing_dependency_is_a_clear_error_naming_it() -> None:
    """A dependency that raises stops the run before the model with the key and the cause."""

    def broken() -> str:
        raise ConnectionError("calendar unreachable")

    with pytest.raises(DependencyError, match=r"'calendar'.*ConnectionError: calendar unreachable"):
        await resolve_dependencies({"calendar": broken}, {})


def test_dependencies_and_metadata_fill_templates_in_that_order() -> None:
    """{key} comes from state, then dependencies, then metadata, then user_id/session_id."""
    system = build_system_message(
        PromptSpec(instructions="{a} {b} {c} {user_id} {missing} {c.real}"),
        state={"a": "state-a"},
        dependencies={"a": "dep-a", "b": "dep-b"},
        metadata={"a": "meta-a", "b": "meta-b", "c": "meta-c", "user_id": "meta-user"},
        identity={"user_id": "u1"},
    )
    assert system == "state-a dep-b meta-c meta-user {missing} {c.real}"


def test_add_dependencies_to_context_lists_them_in_the_system_message() -> None:
    """add_dependencies_to_context=True shows the resolved dependencies as JSON."""
    spec = PromptSpec(add_dependencies_to_context=True)
    system = build_system_message(
        spec, state={}, dependencies={"now": "12:00", "n": 3}, identity={}
    )
    assert system == (
        '<additional context>\n{\n  "now": "12:00",\n  "n": 3\n}\n</additional context>'
    )
    assert build_system_message(PromptSpec(), state={}, dependencies={"x": 1}, identity={}) is None


async def test_prepare_run_resolves_dependencies_into_the_run_context() -> None:
    """prepare_run gives tools a RunContext with resolved dependencies (callables get agent)."""
    from core.agent.tool_calls import prepare_run
    from core.db.in_memory import InMemoryDb
    from core.db.records import SessionMeta
    from core.state.session import open_session

    def owner(agent: Any, run_context: RunContext) -> str:
        return f"{agent}:{run_context.session_id}"

    async with open_session(
        InMemoryDb(),
        session_id="s",
        user_id="u",
        run_id="r",
        meta=SessionMeta(kind="agent", owner_id="a", user_id="u"),
        default={},
        run_state=None,
        overwrite=False,
    ) as handle:
        context, injected = await prepare_run(
            handle, dependencies={"owner": owner, "n": 1}, extra={"agent": "bot"}
        )
    assert dict(context.dependencies) == {"owner": "bot:s", "n": 1}
    assert injected["run_context"] is context


def test_direct_tool_calls_see_resolved_dependencies() -> None:
    """arun_tool / slash commands resolve callable dependencies for the call, like a run."""

    def show(run_context: RunContext) -> str:
        return str(run_context.dependencies["now"])

    agent = Agent(tools=[show], dependencies={"now": lambda: "12:00"})
    assert agent.run_tool("show", {}, session_id="s").content == "12:00"
