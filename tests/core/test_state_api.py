"""Stored-state API outside runs: get/update_session_state, agent.state, sync bridge, memory."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.run import RunContext
from core.testing import ScriptedModel, tool_call


class TestAgentState:
    """Seed 002's TestAgentState, with agno -> core (a model is built but never called)."""

    def setup_method(self) -> None:
        """A fresh agent per test."""
        self.agent = Agent(model=ScriptedModel())

    def test_basic_state_operations(self) -> None:
        """set/has/get/update/delete work on the agent's own session."""
        self.agent.state.set("test_key", "test_value")
        assert self.agent.state.has("test_key")
        assert self.agent.state.get("test_key") == "test_value"
        self.agent.state.set("test_key", "updated_value")
        assert self.agent.state.get("test_key") == "updated_value"
        self.agent.state.delete("test_key")
        assert not self.agent.state.has("test_key")

    def test_complex_state_structures(self) -> None:
        """Nested values round-trip."""
        complex_data = {
            "user": {
                "name": "Test User",
                "preferences": {"theme": "dark"},
                "history": [{"action": "login", "timestamp": "2023-10-15"}],
            }
        }
        self.agent.state.set("complex_data", complex_data)
        retrieved = self.agent.state.get("complex_data")
        assert retrieved["user"]["name"] == "Test User"
        assert retrieved["user"]["preferences"]["theme"] == "dark"
        assert len(retrieved["user"]["history"]) == 1

    def test_state_with_defaults(self) -> None:
        """Missing keys give the default (None unless given)."""
        assert self.agent.state.get("nonexistent", "default") == "default"
        assert self.agent.state.get("nonexistent") is None

    def test_state_clear(self) -> None:
        """clear() removes every key."""
        self.agent.state.set("key1", "value1")
        self.agent.state.set("key2", "value2")
        self.agent.state.clear()
        assert not self.agent.state.has("key1")
        assert not self.agent.state.has("key2")
        assert len(self.agent.state.get_all()) == 0


def test_agent_state_changes_are_persisted_and_seen_by_runs() -> None:
    """agent.state writes the stored session that the next run of that session loads."""
    db = InMemoryDb()
    model = ScriptedModel(["ok"])
    agent = Agent(model=model, db=db, session_id="user_123_session", instructions="Hi {user_name}")
    agent.state.set("user_name", "Alice")
    agent.state.update("prefs", {"theme": "dark"})
    agent.state.update("prefs", {"lang": "en"})
    agent.run("hello")
    assert model.requests[0].system == "Hi Alice"
    other = Agent(db=db, session_id="user_123_session")
    assert other.state.get_all() == {"user_name": "Alice", "prefs": {"theme": "dark", "lang": "en"}}


def test_update_session_state_merges_and_persists() -> None:
    """update_session_state deep-merges into the stored state."""
    agent = Agent(session_state={"a": {"x": 1}})
    agent.update_session_state({"a": {"y": 2}, "b": 3}, session_id="s")
    assert agent.get_session_state("s") == {"a": {"x": 1, "y": 2}, "b": 3}


def test_get_session_state_of_an_unknown_session_is_the_default_and_creates_nothing() -> None:
    """Reading never creates a session."""
    agent = Agent(session_state={"tasks": []})
    assert agent.get_session_state("new") == {"tasks": []}
    assert agent.run_tool is not None and agent.db is not None
    assert asyncio.run(agent.db.aload("new")) is None


def test_bad_value_via_agent_state_is_refused_and_nothing_changes() -> None:
    """agent.state.set with a non-JSON value raises and leaves the stored state as it was."""
    agent = Agent()
    agent.state.set("ok", 1)
    with pytest.raises(ValueError, match="'bad'"):
        agent.state.set("bad", object())
    assert agent.state.get_all() == {"ok": 1}


async def test_sync_api_works_while_an_event_loop_runs_in_this_thread() -> None:
    """run() from a thread whose loop is running still works (it uses its own loop thread)."""
    agent = Agent(model=ScriptedModel(["sync ok"]))
    out = await asyncio.to_thread(agent.run, "x")
    assert out.content == "sync ok"


async def test_dependencies_are_visible_read_only_and_never_persisted() -> None:
    """Tools see dependencies through RunContext; they cannot change them; nothing is stored."""
    seen: dict[str, Any] = {}

    def read_deps(run_context: RunContext) -> str:
        """Read."""
        seen.update(run_context.dependencies)
        with pytest.raises(TypeError):
            run_context.dependencies["tenant"] = "evil"  # type: ignore[index]
        return "ok"

    agent = Agent(
        model=ScriptedModel([tool_call("read_deps"), "ok"]),
        tools=[read_deps],
        dependencies={"tenant": "acme"},
    )
    out = await agent.arun("x", session_id="s", dependencies={"flag": True})
    assert seen == {"tenant": "acme", "flag": True}
    assert out.session_state == {} and await agent.aget_session_state("s") == {}


async def test_user_memory_is_kept_per_user_across_sessions() -> None:
    """remember_user_fact in one session is in context for the same user in another session."""
    db = InMemoryDb()
    model = ScriptedModel(
        [tool_call("remember_user_fact", fact="Prefers tea"), "noted", "hello", "hi stranger"]
    )
    agent = Agent(model=model, db=db, enable_agentic_memory=True, add_memories_to_context=True)
    await agent.arun("I like tea", session_id="s1", user_id="u1")
    await agent.arun("hi", session_id="s2", user_id="u1")
    await agent.arun("hi", session_id="s3", user_id="u2")
    assert "Prefers tea" in model.requests[2].system
    assert "Prefers tea" not in model.requests[3].system
    memories = await db.aget_memories("u1")
    assert [m.memory for m in memories] == ["Prefers tea"]
