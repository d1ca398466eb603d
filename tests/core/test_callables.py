"""Callables read per run (Agno's semantics), on every store.

``instructions=`` / ``system_message=`` as functions, ``tools=`` as a factory and a
team's ``members=`` as a factory are called once per run with the run's own state
(under its lease), by the parameter names they declare; factories are cached per user
(else per session) unless ``cache_callables=False``.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.models.scripted import ScriptedModel, tool_call
from core.run import RunContext
from core.team import Team
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store


def game_instructions(run_context: RunContext) -> str:
    """Instructions from the run's state (Agno's instructions_with_state cookbook shape)."""
    genre = run_context.session_state.get("game_genre", "none")
    return f"The team is working on a {genre} game."


async def test_instructions_function_reads_each_runs_state(store: BaseDb) -> None:
    """An instructions function is called per run with that run's state."""
    model = ScriptedModel(["one", "two"])
    agent = Agent(model=model, db=store, instructions=game_instructions)
    await agent.arun("go", session_id="s1", session_state={"game_genre": "platformer"})
    await agent.arun("go", session_id="s2", session_state={"game_genre": "puzzle"})
    assert "working on a platformer game" in model.requests[0].system
    assert "working on a puzzle game" in model.requests[1].system


async def test_async_instructions_get_agent_and_state_and_their_changes_are_saved(
    store: BaseDb,
) -> None:
    """An async instructions function gets ``agent`` and ``session_state`` by name;
    what it writes to the state is saved by the run, like a tool's change."""
    seen: list[Any] = []

    async def instructions(agent: Agent, session_state: dict[str, Any]) -> list[str]:
        seen.append(agent)
        session_state["briefed"] = session_state.get("briefed", 0) + 1
        return [f"Briefing number {session_state['briefed']}.", "Be brief."]

    model = ScriptedModel(["a", "b"])
    agent = Agent(model=model, db=store, instructions=instructions, session_id="s")
    await agent.arun("one")
    await agent.arun("two")
    assert seen == [agent, agent]
    assert "- Briefing number 2." in model.requests[1].system
    assert "- Be brief." in model.requests[1].system
    assert agent.get_session_state()["briefed"] == 2


async def test_system_message_function_is_called_per_run(store: BaseDb) -> None:
    """A system_message function replaces the built system message, filled from state."""
    model = ScriptedModel(["ok"])
    agent = Agent(model=model, db=store, system_message=lambda agent: f"I am {agent.name}: {{x}}")
    agent.name = "Ada"
    await agent.arun("hi", session_id="s", session_state={"x": 7})
    assert model.requests[0].system == "I am Ada: 7"


def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Hello, {name}!"


def farewell(name: str) -> str:
    """Say goodbye to someone."""
    return f"Goodbye, {name}!"


def tools_by_mode(session_state: dict[str, Any]) -> list[Any]:
    """The tools of the state's mode (Agno's session_state_tools cookbook shape)."""
    return [greet] if session_state.get("mode", "greet") == "greet" else [farewell]


async def test_tools_factory_without_cache_is_called_every_run(store: BaseDb) -> None:
    """With ``cache_callables=False`` each run's tools come from that run's state."""
    model = ScriptedModel(
        [tool_call("greet", name="Al"), "hi", tool_call("farewell", name="Al"), "bye"]
    )
    agent = Agent(model=model, db=store, tools=tools_by_mode, cache_callables=False)
    first = await agent.arun("hi", session_id="s", session_state={"mode": "greet"})
    second = await agent.arun("bye", session_id="s", session_state={"mode": "farewell"})
    names = [[t["function"]["name"] for t in r.tools] for r in model.requests]
    assert names == [["greet"], ["greet"], ["farewell"], ["farewell"]]
    assert first.tools[0].result == "Hello, Al!"
    assert second.tools[0].result == "Goodbye, Al!"
    assert agent.functions == {}  # a factory's tools exist per run only


async def test_tools_factory_is_cached_per_user_then_per_session(store: BaseDb) -> None:
    """Cached (Agno's default): one call per user id, else per session id; cleared on demand."""
    calls: list[str | None] = []

    def factory(run_context: RunContext) -> list[Any]:
        calls.append(run_context.user_id or run_context.session_id)
        return [greet]

    agent = Agent(model=ScriptedModel(["1", "2", "3", "4", "5"]), db=store, tools=factory)
    await agent.arun("x", session_id="s1", user_id="u1")
    await agent.arun("x", session_id="s2", user_id="u1")  # same user: cached
    await agent.arun("x", session_id="s3", user_id="u2")
    await agent.arun("x", session_id="s3")  # no user: keyed by session
    agent.clear_callable_cache()
    await agent.arun("x", session_id="s1", user_id="u1")
    assert calls == ["u1", "u2", "s3", "u1"]


async def test_custom_cache_key_function(store: BaseDb) -> None:
    """``callable_tools_cache_key`` names the cache key (here: the state's tenant)."""
    calls: list[str] = []

    def factory(session_state: dict[str, Any]) -> list[Any]:
        calls.append(session_state["tenant"])
        return [greet]

    agent = Agent(
        model=ScriptedModel(["1", "2", "3"]),
        db=store,
        tools=factory,
        callable_tools_cache_key=lambda run_context: run_context.session_state["tenant"],
    )
    await agent.arun("x", session_id="a", user_id="u1", session_state={"tenant": "t1"})
    await agent.arun("x", session_id="b", user_id="u2", session_state={"tenant": "t1"})
    await agent.arun("x", session_id="c", user_id="u1", session_state={"tenant": "t2"})
    assert calls == ["t1", "t2"]


async def test_factory_that_returns_no_list_fails_the_run_and_loses_nothing(
    store: BaseDb,
) -> None:
    """A factory returning something else fails the run with a clear error; the
    session keeps what it had."""
    agent = Agent(model=ScriptedModel(["ok"]), db=store, tools=lambda: greet, session_id="s")
    agent.session_state = {"kept": True}
    with pytest.raises(TypeError, match=r"tools factory .* must return a list or tuple"):
        await agent.arun("x")
    assert agent.get_session_state() == {"kept": True}


def test_agentic_state_tool_stays_beside_a_tools_factory() -> None:
    """Tools the agent adds itself are kept beside a factory's tools."""
    agent = Agent(tools=tools_by_mode, enable_agentic_state=True)
    assert list(agent.functions) == ["update_session_state"]


async def test_team_members_factory_picks_members_from_each_runs_state(store: BaseDb) -> None:
    """A members factory is called per run; the leader is offered only those members."""
    writer = Agent(name="Writer", role="Content writer", model=ScriptedModel(["a haiku"]))
    researcher = Agent(name="Researcher", model=ScriptedModel([]))

    def pick_members(session_state: dict[str, Any]) -> list[Agent]:
        return [researcher, writer] if session_state.get("needs_research") else [writer]

    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="writer", task="haiku"), "done", "done"]
    )
    team = Team(members=pick_members, model=leader, db=store, cache_callables=False)
    out = await team.arun("haiku", session_id="s", session_state={"needs_research": False})
    assert out.member_responses[0].content == "a haiku"
    assert "Writer" in leader.requests[0].system and "Researcher" not in leader.requests[0].system
    await team.arun("research", session_id="s", session_state={"needs_research": True})
    assert "Researcher" in leader.requests[2].system
    assert team.get_session_state(session_id="s") == {"needs_research": True}
