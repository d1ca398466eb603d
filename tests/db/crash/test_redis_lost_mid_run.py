"""Redis restarted empty while a run is open: the run is refused, and told why.

The run opened the session (lease taken, state loaded) before the restart; its save
finds neither the session nor the lease. Nothing from the run may be written, and
the reason given is that Redis lost its data, not that another change came first.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bots.chat.errors import guarded
from bots.chat.replies import Reply
from core.agent import Agent
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.exceptions import RedisDataLostError
from tests.db.crash.conftest import RedisServer


@pytest.fixture
async def stores(own_redis: RedisServer, tmp_path: Path) -> AsyncIterator[tuple[RedisDb, SqliteDb]]:
    """RedisDb on a private, killable redis-server, over SQLite."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    hot = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    try:
        yield hot, durable
    finally:
        await hot.aclose()
        await durable.aclose()


def _agent(store: RedisDb, server: RedisServer) -> Agent:
    def add_item(session_state: dict[str, Any], item: str) -> str:
        """Add an item; Redis is restarted empty while this run holds the session."""
        if item == "lost":
            server.restart()
        session_state["items"].append(item)
        return f"added {item}"

    return Agent(db=store, session_state={"items": []}, tools=[add_item], id="lister")


@pytest.mark.parametrize("snapshotted", [True, False], ids=["durable-current", "durable-behind"])
async def test_a_run_whose_redis_restarted_empty_says_redis_lost_its_data(
    stores: tuple[RedisDb, SqliteDb], own_redis: RedisServer, snapshotted: bool
) -> None:
    """The save is refused as "Redis lost its data; nothing from this run was saved"."""
    hot, durable = stores
    agent = _agent(hot, own_redis)
    await agent.arun_tool("add_item", {"item": "a"}, session_id="s", user_id="u")
    if snapshotted:
        await hot.aflush()
    with pytest.raises(RedisDataLostError) as caught:
        await agent.arun_tool("add_item", {"item": "lost"}, session_id="s", user_id="u")
    message = str(caught.value)
    assert "Redis lost its data" in message and "nothing from this run was saved" in message
    assert "saved first" not in message and "another run" not in message
    stored = await hot.aload("s")
    items = stored.state["items"] if stored is not None else None
    assert items == (["a"] if snapshotted else None)  # nothing of the refused run
    copy = await durable.aload("s")
    assert (copy.state["items"] if copy else None) == (["a"] if snapshotted else None)

    if not snapshotted:  # the session existed only in the Redis that was lost: again
        await agent.arun_tool("add_item", {"item": "a"}, session_id="s", user_id="u")

    async def run() -> Reply:
        await agent.arun_tool("add_item", {"item": "lost"}, session_id="s", user_id="u")
        return Reply("unreachable")

    reply = await guarded(run, agent_id="lister", offline_commands="/lister add_item")
    assert "Redis lost its data" in reply.text
    assert "nothing from this message was saved" in reply.text
    assert "saved first" not in reply.text


async def test_a_new_sessions_first_run_across_a_restart_says_redis_lost_its_data(
    stores: tuple[RedisDb, SqliteDb], own_redis: RedisServer
) -> None:
    """A session's first run loses its lease with Redis: not "the lease expired"."""
    hot, durable = stores
    agent = _agent(hot, own_redis)
    with pytest.raises(RedisDataLostError, match="Redis lost its data"):
        await agent.arun_tool("add_item", {"item": "lost"}, session_id="s", user_id="u")
    assert await hot.aload("s") is None and await durable.aload("s") is None
