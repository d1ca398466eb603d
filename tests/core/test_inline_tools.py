"""Sync tools declared ``@tool(inline=True)`` run on the event loop, with the same guarantees."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.models.scripted import ScriptedModel, tool_call
from core.tools import tool


@pytest.fixture(params=["memory", "redis"])
async def db(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str
) -> AsyncIterator[BaseDb]:
    if request.param == "memory":
        yield InMemoryDb()
        return
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    yield store
    await store.aclose()


def _agent(db: BaseDb, tools: list[Any], *calls: Any) -> Agent:
    return Agent(ScriptedModel([*calls, "done"]), db=db, tools=tools, session_id="s")


async def test_an_inline_tool_runs_on_the_loop_against_the_live_state(db: BaseDb) -> None:
    """The call runs on the loop's thread, changes the live state itself, and is saved."""
    seen: dict[str, Any] = {}

    @tool(inline=True)
    def add(session_state: dict[str, Any], item: str) -> str:
        """Add an item."""
        seen["thread"] = threading.get_ident()
        seen["state"] = session_state
        session_state.setdefault("items", []).append(item)
        return "added"

    agent = _agent(db, [add], tool_call("add", item="milk"))
    output = await agent.arun("go")
    assert seen["thread"] == threading.get_ident()
    assert output.session_state == {"items": ["milk"]}
    assert await agent.aget_session_state("s") == {"items": ["milk"]}
    assert type(seen["state"]).__name__ == "TrackedState"  # the live dict, not a private copy


async def test_an_inline_tool_that_raises_is_undone(db: BaseDb) -> None:
    @tool(inline=True)
    def broken(session_state: dict[str, Any]) -> str:
        """Change the state, then fail."""
        session_state["half"] = True
        raise RuntimeError("boom")

    agent = Agent(
        ScriptedModel([tool_call("broken"), "done"]),
        db=db,
        tools=[broken],
        session_state={"n": 1},
        session_id="s",
    )
    output = await agent.arun("go")
    assert output.tools[0].error and "boom" in (output.tools[0].result or "")
    assert await agent.aget_session_state("s") == {"n": 1}


async def test_an_inline_tool_past_its_timeout_is_undone_when_it_returns(db: BaseDb) -> None:
    """It cannot be interrupted; its lateness is noticed on return and it counts as timed out."""

    @tool(inline=True, timeout=0.05)
    def slow(session_state: dict[str, Any]) -> str:
        """Block longer than the timeout (what an inline tool must never do)."""
        session_state["late"] = True
        time.sleep(0.2)
        return "late"

    agent = Agent(
        ScriptedModel([tool_call("slow"), "done"]),
        db=db,
        tools=[slow],
        session_state={"n": 1},
        session_id="s",
    )
    output = await agent.arun("go")
    assert output.tools[0].error
    assert "timed out after 0.05 s" in (output.tools[0].result or "")
    assert await agent.aget_session_state("s") == {"n": 1}


async def test_a_sync_hook_sends_an_inline_tool_back_to_a_worker(db: BaseDb) -> None:
    """A sync hook runs on a worker thread, so the call is isolated like any sync tool's."""
    threads: list[int] = []

    def hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        return function_call(**arguments)

    @tool(inline=True, tool_hooks=[hook])
    def add(session_state: dict[str, Any], item: str) -> str:
        """Add an item."""
        threads.append(threading.get_ident())
        session_state.setdefault("items", []).append(item)
        return "added"

    agent = _agent(db, [add], tool_call("add", item="eggs"))
    await agent.arun("go")
    assert threads and threads[0] != threading.get_ident()
    assert await agent.aget_session_state("s") == {"items": ["eggs"]}


async def test_an_async_hook_keeps_an_inline_tool_on_the_loop(db: BaseDb) -> None:
    threads: list[int] = []

    async def hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        return await function_call(**arguments)

    @tool(inline=True, tool_hooks=[hook])
    def add(session_state: dict[str, Any], item: str) -> str:
        """Add an item."""
        threads.append(threading.get_ident())
        session_state.setdefault("items", []).append(item)
        return "added"

    agent = _agent(db, [add], tool_call("add", item="tea"))
    await agent.arun("go")
    assert threads == [threading.get_ident()]
    assert await agent.aget_session_state("s") == {"items": ["tea"]}


def test_inline_is_refused_on_an_async_tool() -> None:
    async def fetch() -> str:
        """Fetch."""
        await asyncio.sleep(0)
        return "x"

    with pytest.raises(ValueError, match="inline=True is for sync tools only"):
        tool(inline=True)(fetch)
