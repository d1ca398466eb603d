"""Redis that comes back *behind* the durable store never rolls a session back.

Each test runs a private redis-server, writes an RDB file at some point ("the older
RDB"), keeps working, then kill -9s Redis and restarts it from that file, as happens
after a crash with RDB persistence, a restored backup or a promoted lagging replica.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sqlite import SqliteDb
from tests.db.crash.conftest import RedisServer


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the list."""
    session_state["items"].append(item)
    return f"added {item}"


def _agent(store: RedisDb) -> Agent:
    return Agent(db=store, session_state={"items": []}, tools=[add_item], id="lister")


async def _add(store: RedisDb, *items: str) -> None:
    agent = _agent(store)
    for item in items:
        await agent.arun_tool("add_item", {"item": item}, session_id="s", user_id="u")


class Deployment:
    """A RedisDb over a SQLite durable store on the test's own redis-server."""

    def __init__(self, server: RedisServer, db_file: Path) -> None:
        self.server = server
        self.db_file = db_file
        self.durable = SqliteDb(db_file=db_file)
        self.opened: list[RedisDb] = []
        self.store = self.reopen()

    def reopen(self) -> RedisDb:
        """A new RedisDb on the same servers, as a bot process started after a restart."""
        store = RedisDb(db_url=self.server.url, snapshot_to=self.durable, run_snapshotter=False)
        self.opened.append(store)
        return store

    async def aclose(self) -> None:
        for store in self.opened:
            await store.aclose()
        await self.durable.aclose()


@pytest.fixture
async def deployment(own_redis: RedisServer, tmp_path: Path) -> AsyncIterator[Deployment]:
    """Redis (private, killable) over SQLite; everything closed after the test."""
    deployed = Deployment(own_redis, tmp_path / "d.db")
    try:
        yield deployed
    finally:
        await deployed.aclose()


async def _items(store: RedisDb) -> list[str]:
    record = await store.aload("s")
    assert record is not None
    return list(record.state["items"])


async def test_restart_from_an_older_rdb_serves_the_durable_state(
    deployment: Deployment, own_redis: RedisServer
) -> None:
    """Redis restarted from an older RDB: the next run sees every acknowledged item."""
    await _add(deployment.store, "a", "b")
    own_redis.save_rdb()  # the RDB holds version 2
    await _add(deployment.store, "c", "d")
    await deployment.store.aflush()  # the durable store holds version 4
    own_redis.restart()
    fresh = deployment.reopen()
    assert await _items(fresh) == ["a", "b", "c", "d"]
    await _add(fresh, "e")
    await fresh.aflush()
    copy = await deployment.durable.aload("s")
    assert copy is not None and copy.state["items"] == ["a", "b", "c", "d", "e"]
    assert copy.version == 5  # continued from the durable version, never reused
    # idle sessions expire from Redis and come back from the durable store
    await fresh._clients.get().flushall()
    assert await _items(fresh) == ["a", "b", "c", "d", "e"]


async def test_restart_during_a_snapshot_pass_loses_nothing(
    deployment: Deployment, own_redis: RedisServer
) -> None:
    """Redis restarted from an older RDB between a snapshot's commit and its cleanup."""
    await _add(deployment.store, "a")
    own_redis.save_rdb()
    await _add(deployment.store, "b", "c")

    async def restart(batch: list[SessionRecord]) -> None:
        own_redis.restart()

    passes = Snapshotter(deployment.store.dirty, deployment.durable, after_commit=restart)
    await passes.drain_once()  # commits version 3, then Redis comes back at version 1
    fresh = deployment.reopen()
    assert await _items(fresh) == ["a", "b", "c"]
    await _add(fresh, "d")
    await fresh.aflush()
    await fresh._clients.get().flushall()
    assert await _items(fresh) == ["a", "b", "c", "d"]
    history = [e.version for e in await deployment.durable.ahistory("s")]
    assert history == sorted(set(history), reverse=True)  # no version written twice


async def test_sessions_not_yet_snapshotted_survive_the_check(
    deployment: Deployment, own_redis: RedisServer
) -> None:
    """After a restart with an up-to-date RDB, dirty sessions are kept, not replaced."""
    await _add(deployment.store, "a")
    await deployment.store.aflush()
    await _add(deployment.store, "b")  # only in Redis
    own_redis.save_rdb()
    own_redis.restart()
    fresh = deployment.reopen()
    assert await _items(fresh) == ["a", "b"]
    assert await fresh.dirty.count() == 1


async def test_a_session_deleted_after_the_rdb_stays_deleted(
    deployment: Deployment, own_redis: RedisServer
) -> None:
    """A snapshotted session deleted after the RDB was written does not come back."""
    await _add(deployment.store, "a")
    await deployment.store.aflush()
    own_redis.save_rdb()
    assert await deployment.store.adelete("s")
    own_redis.restart()
    assert await deployment.reopen().aload("s") is None


async def test_a_durable_store_restored_from_backup_gets_the_session_again(
    deployment: Deployment, own_redis: RedisServer
) -> None:
    """Redis ahead of a durable store restored from an older backup: copied again."""
    await _add(deployment.store, "a")
    await deployment.store.aflush()
    await deployment.durable.aclose()
    backup = deployment.db_file.read_bytes()  # the backup holds version 1
    await _add(deployment.store, "b")
    await deployment.store.aflush()
    own_redis.save_rdb()
    own_redis.restart()
    await deployment.durable.aclose()
    for leftover in deployment.db_file.parent.glob("d.db-*"):
        leftover.unlink()
    deployment.db_file.write_bytes(backup)
    deployment.durable = SqliteDb(db_file=deployment.db_file)
    fresh = deployment.reopen()
    assert await _items(fresh) == ["a", "b"]
    assert await fresh.aflush() == 1
    copy = await deployment.durable.aload("s")
    assert copy is not None and copy.state["items"] == ["a", "b"] and copy.version == 2
