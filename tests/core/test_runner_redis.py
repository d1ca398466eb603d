"""The runner on RedisDb: a whole agent turn costs two round trips, and releases its lease."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.redis import RedisDb
from core.testing import ScriptedModel, tool_call


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "added"


@pytest.fixture
async def db(redis_url: str, key_prefix: str) -> AsyncIterator[RedisDb]:
    """A RedisDb under this test's prefix."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    yield store
    await store.aclose()


async def test_an_agent_turn_costs_two_round_trips(db: RedisDb) -> None:
    """arun with one tool batch: open (lease + load) and the final save (+ release)."""
    model = ScriptedModel([tool_call("add", item="a"), "ok", tool_call("add", item="b"), "ok"])
    agent = Agent(model=model, db=db, tools=[add], session_state={"items": []})
    await agent.arun("first", session_id="s")
    db.round_trips.reset()
    output = await agent.arun("second", session_id="s")
    assert db.round_trips.reset() == 2
    assert output.session_state == {"items": ["a", "b"]}
    # the lease went back with the save: the next run takes the session at once
    await agent.arun_tool("add", {"item": "c"}, session_id="s")
    assert await agent.aget_session_state("s") == {"items": ["a", "b", "c"]}
