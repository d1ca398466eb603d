"""A snapshot pass that read before Redis restarted cannot commit over the new Redis.

The sequence (ARCHITECTURE invariant 1: a version names one content): a pass reads
version 3 = [a, b, c]; Redis is restarted empty; a run reads the session back from the
durable version 2 and saves its own version 3 = [a, b, X]; the slow pass then commits.
If it were written, Redis and the durable store would hold two different version 3s,
and a second Redis loss would read back [a, b, c]: X, acknowledged, silently gone.
The durable store refuses the pass (StaleSnapshotError), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.postgres import PostgresDb
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from tests.db.crash.conftest import RedisServer


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the list."""
    session_state["items"].append(item)
    return f"added {item}"


async def _add(store: RedisDb, *items: str) -> None:
    agent = Agent(db=store, session_state={"items": []}, tools=[add_item], id="lister")
    for item in items:
        await agent.arun_tool("add_item", {"item": item}, session_id="s", user_id="u")


@pytest.fixture(params=["sqlite", "postgres"])
def durable_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], SqlDb]:
    """Durable stores on one database (each call: another store object, same rows)."""
    if request.param == "sqlite":
        return lambda: SqliteDb(db_file=tmp_path / "d.db")
    url, schema = request.getfixturevalue("postgres_schema")
    return lambda: PostgresDb(db_url=url, schema=schema)


@pytest.fixture
async def durable(durable_factory: Callable[[], SqlDb]) -> AsyncIterator[SqlDb]:
    store = durable_factory()
    yield store
    await store.aclose()


async def test_a_pass_that_read_before_a_redis_restart_is_refused(
    own_redis: RedisServer, durable: SqlDb
) -> None:
    """The slow pass's version 3 never reaches the durable store; the run's does."""
    before = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    after = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    try:
        await _add(before, "a", "b")
        await before.aflush()  # the durable store holds version 2 = [a, b]
        await _add(before, "c")  # version 3 = [a, b, c], in Redis only
        read, commit = asyncio.Event(), asyncio.Event()

        async def hold(batch: list[SessionRecord]) -> None:
            read.set()
            await commit.wait()

        slow = Snapshotter(before.dirty, durable, before_commit=hold)
        in_flight = asyncio.ensure_future(slow.drain_once())
        await asyncio.wait_for(read.wait(), 10)  # the pass holds version 3 = [a, b, c]
        own_redis.restart()  # empty: version 3 is lost from Redis
        await _add(after, "X")  # read back from version 2: version 3 = [a, b, X]
        hot = await after.aload("s")
        assert hot is not None and (hot.version, hot.state["items"]) == (3, ["a", "b", "X"])

        commit.set()
        assert await in_flight == 0  # refused: nothing written, nothing retired
        assert slow.written == 0 and slow.quarantined == 0
        copy = await durable.aload("s")
        assert copy is not None and copy.version == 2  # not the pass's [a, b, c]

        assert await after.aflush() == 1  # the run's version 3 is the one copied
        copy = await durable.aload("s")
        assert copy is not None and (copy.version, copy.state["items"]) == (3, ["a", "b", "X"])
        assert copy.save_id == hot.save_id  # Redis and the durable store agree
        history = {e.version: e.state["items"] for e in await durable.ahistory("s")}
        assert history == {3: ["a", "b", "X"], 2: ["a", "b"]}  # one content per version

        await _add(after, "Y")
        await after.aflush()
        own_redis.restart()  # a second loss: what comes back is every acknowledged item
        again = await after.aload("s")
        assert again is not None and again.state["items"] == ["a", "b", "X", "Y"]
    finally:
        await before.aclose()
        await after.aclose()
