"""Redis that comes back *behind* the durable store never rolls a session back.

Each test runs a private redis-server, writes an RDB file at some point ("the older
RDB"), keeps working, then kill -9s Redis and restarts it from that file, as happens
after a crash with RDB persistence, a restored backup or a promoted lagging replica.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.agent import Agent
from core.db.base import SessionRecord
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


async def _items(store: RedisDb) -> list[str]:
    record = await store.aload("s")
    assert record is not None
    return list(record.state["items"])


async def test_restart_from_an_older_rdb_serves_the_durable_state(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """Redis restarted from an older RDB: the next run sees every acknowledged item."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    await _add(store, "a", "b")
    own_redis.save_rdb()  # the RDB holds version 2
    await _add(store, "c", "d")
    await store.aflush()  # the durable store holds version 4
    own_redis.restart()
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    assert await _items(fresh) == ["a", "b", "c", "d"]
    await _add(fresh, "e")
    await fresh.aflush()
    copy = await durable.aload("s")
    assert copy is not None and copy.state["items"] == ["a", "b", "c", "d", "e"]
    assert copy.version == 5  # continued from the durable version, never reused
    # idle sessions expire from Redis and come back from the durable store
    await fresh._clients.get().flushall()
    assert await _items(fresh) == ["a", "b", "c", "d", "e"]
    await fresh.aclose()
    await store.aclose()
    await durable.aclose()


async def test_restart_during_a_snapshot_pass_loses_nothing(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """Redis restarted from an older RDB between a snapshot's commit and its cleanup."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    await _add(store, "a")
    own_redis.save_rdb()
    await _add(store, "b", "c")

    async def restart(batch: list[SessionRecord]) -> None:
        own_redis.restart()

    passes = Snapshotter(store.dirty, durable, after_commit=restart)
    await passes.drain_once()  # commits version 3, then Redis comes back at version 1
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    assert await _items(fresh) == ["a", "b", "c"]
    await _add(fresh, "d")
    await fresh.aflush()
    await fresh._clients.get().flushall()
    assert await _items(fresh) == ["a", "b", "c", "d"]
    history = [e.version for e in await durable.ahistory("s")]
    assert history == sorted(set(history), reverse=True)  # no version written twice
    await fresh.aclose()
    await store.aclose()
    await durable.aclose()


async def test_sessions_not_yet_snapshotted_survive_the_check(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """After a restart with an up-to-date RDB, dirty sessions are kept, not replaced."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    await _add(store, "a")
    await store.aflush()
    await _add(store, "b")  # only in Redis
    own_redis.save_rdb()
    own_redis.restart()
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    assert await _items(fresh) == ["a", "b"]
    assert await fresh.dirty.count() == 1
    await fresh.aclose()
    await store.aclose()
    await durable.aclose()


async def test_a_session_deleted_after_the_rdb_stays_deleted(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """A snapshotted session deleted after the RDB was written does not come back."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    await _add(store, "a")
    await store.aflush()
    own_redis.save_rdb()
    assert await store.adelete("s")
    own_redis.restart()
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    assert await fresh.aload("s") is None
    await fresh.aclose()
    await store.aclose()
    await durable.aclose()


async def test_a_durable_store_restored_from_backup_gets_the_session_again(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """Redis ahead of a durable store restored from an older backup: copied again."""
    db_file = tmp_path / "d.db"
    durable = SqliteDb(db_file=db_file)
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    await _add(store, "a")
    await store.aflush()
    await durable.aclose()
    backup = db_file.read_bytes()  # the backup holds version 1
    await _add(store, "b")
    await store.aflush()
    own_redis.save_rdb()
    own_redis.restart()
    await durable.aclose()
    for leftover in tmp_path.glob("d.db-*"):
        leftover.unlink()
    db_file.write_bytes(backup)
    restored = SqliteDb(db_file=db_file)
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=restored, run_snapshotter=False)
    assert await _items(fresh) == ["a", "b"]
    assert await fresh.aflush() == 1
    copy = await restored.aload("s")
    assert copy is not None and copy.state["items"] == ["a", "b"] and copy.version == 2
    await fresh.aclose()
    await store.aclose()
    await restored.aclose()
