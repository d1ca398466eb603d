"""Callable dependencies and metadata through whole runs (needs the loop to call prepare_run)."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.run.context import RunContext
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from core.tools.dependencies import DependencyError


def test_callable_dependency_reaches_prompt_and_tools_resolved_per_run() -> None:
    """A callable dependency is called once per run; prompt and run_context see its value."""
    calls: list[int] = []

    def ticket() -> str:
        calls.append(1)
        return f"T{len(calls)}"

    seen: list[Any] = []

    def show(run_context: RunContext) -> str:
        seen.append(run_context.dependencies["ticket"])
        return "shown"

    model = ScriptedModel([tool_call("show"), "ok", "again"])
    agent = Agent(
        model=model, tools=[show], instructions="Ticket {ticket}.", dependencies={"ticket": ticket}
    )
    agent.run("go", session_id="s")
    agent.run("go", session_id="s")
    assert calls == [1, 1]
    assert seen == ["T1"]
    assert [r.system for r in model.requests] == ["Ticket T1.", "Ticket T1.", "Ticket T2."]


async def test_async_dependency_with_run_context_in_an_async_run() -> None:
    """An async callable taking run_context is awaited; run dependencies override the agent's."""

    async def greeting(run_context: RunContext) -> str:
        return f"hello {run_context.user_id}"

    model = ScriptedModel(["ok", "ok"])
    agent = Agent(model=model, instructions="{greeting}", dependencies={"greeting": greeting})
    await agent.arun("go", session_id="s", user_id="ann")
    await agent.arun("go", session_id="s", user_id="ann", dependencies={"greeting": "hi"})
    assert [r.system for r in model.requests] == ["hello ann", "hi"]


def test_metadata_fills_instructions_in_a_run() -> None:
    """run(metadata=...) values fill {key} in instructions; user text is left alone."""
    model = ScriptedModel(["ok"])
    agent = Agent(model=model, instructions="Plan: {plan}")
    agent.run("my {plan}", session_id="s", metadata={"plan": "pro"})
    request = model.requests[0]
    assert request.system == "Plan: pro"
    assert request.messages[-1].content == "my {plan}"


def test_a_failing_dependency_fails_the_run_before_the_model() -> None:
    """The run raises DependencyError and the model is never called."""

    def broken() -> str:
        raise RuntimeError("no clock")

    model = ScriptedModel(["never"])
    agent = Agent(model=model, dependencies={"now": broken})
    with pytest.raises(DependencyError, match="'now'"):
        agent.run("go", session_id="s")
    assert model.requests == []


def test_add_dependencies_to_context_shows_resolved_values_in_a_run() -> None:
    """add_dependencies_to_context=True puts the called dependencies in the system message."""
    model = ScriptedModel(["ok"])
    agent = Agent(
        model=model, dependencies={"now": lambda: "12:00"}, add_dependencies_to_context=True
    )
    agent.run("go", session_id="s")
    assert '"now": "12:00"' in model.requests[0].system


def test_tool_instructions_reach_the_model_in_a_run() -> None:
    """@tool(instructions=...) is in the system message the model receives."""

    @tool(instructions="Call lookup before answering.")
    def lookup(q: str) -> str:
        return q

    model = ScriptedModel(["ok"])
    Agent(model=model, tools=[lookup]).run("go", session_id="s")
    assert "Call lookup before answering." in model.requests[0].system
