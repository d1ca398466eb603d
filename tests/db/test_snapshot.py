"""The snapshotter and read-back: dirty sessions reach the durable store, nothing is lost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sqlite import SqliteDb
from core.exceptions import StaleVersionError, StoreUnavailableError


class Crash(Exception):
    """Stands in for the process dying at a chosen point."""


@pytest.fixture
def durable() -> InMemoryDb:
    """The durable store."""
    return InMemoryDb()


@pytest.fixture
async def db(redis_url: str, key_prefix: str, durable: InMemoryDb) -> AsyncIterator[RedisDb]:
    """A RedisDb snapshotting to ``durable``; no background task, tests drain by hand."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    yield store
    await store.aclose()


async def wipe(redis_url: str, key_prefix: str) -> None:
    """Delete every key of this test, as a flushed or restarted Redis would."""
    client = aioredis.Redis.from_url(redis_url)
    async for key in client.scan_iter(match=f"{key_prefix}*", count=1000):
        await client.delete(key)
    await client.aclose()


async def test_snapshotter_copies_dirty_sessions_in_batches(
    db: RedisDb, durable: InMemoryDb
) -> None:
    """Every dirty session reaches the durable store and leaves the dirty sets."""
    for n in range(25):
        await db.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
    assert await db.dirty.count() == 25
    snapshotter = Snapshotter(db.dirty, durable, batch_size=7)
    assert await snapshotter.drain() == 25
    assert await db.dirty.count() == 0
    for n in range(25):
        record = await durable.aload(f"s{n}")
        assert record is not None and record.state == {"n": n} and record.version == 1


async def test_change_during_inflight_snapshot_is_not_lost(
    db: RedisDb, durable: InMemoryDb
) -> None:
    """A save landing between the durable commit and the cleanup keeps the session dirty."""
    await db.asave("s", expected_version=0, changed=texts({"n": 1}))

    async def save_meanwhile(batch: list[SessionRecord]) -> None:
        await db.asave("s", expected_version=1, changed=texts({"n": 2}))

    first = Snapshotter(db.dirty, durable, after_commit=save_meanwhile)
    assert await first.drain_once() == 0  # version moved: stays dirty
    assert await db.dirty.count() == 1
    assert await Snapshotter(db.dirty, durable).drain() == 1
    record = await durable.aload("s")
    assert record is not None and record.state == {"n": 2} and record.version == 2


async def test_crash_between_commit_and_cleanup_loses_and_duplicates_nothing(
    db: RedisDb, tmp_path: Path, redis_url: str
) -> None:
    """A snapshotter dying after the durable commit leaves the session dirty; the rerun
    writes no second history row and retires it."""
    sqlite = SqliteDb(db_file=tmp_path / "d.db")
    await db.asave("s", expected_version=0, changed=texts({"n": 1}))

    async def die(batch: list[SessionRecord]) -> None:
        raise Crash

    with pytest.raises(Crash):
        await Snapshotter(db.dirty, sqlite, after_commit=die).drain_once()
    assert await db.dirty.count() == 1
    rerun = Snapshotter(db.dirty, sqlite)
    assert await rerun.drain() == 1
    assert rerun.written == 0  # the guard made the second upsert a no-op
    assert await db.dirty.count() == 0
    assert [e.version for e in await sqlite.ahistory("s")] == [1]
    await sqlite.aclose()


async def test_miss_reads_back_and_versions_continue(
    db: RedisDb, durable: InMemoryDb, redis_url: str, key_prefix: str
) -> None:
    """After Redis lost everything, a load reads the durable copy back; saves continue."""
    await db.asave("s", expected_version=0, changed=texts({"a": 1}))
    await db.asave("s", expected_version=1, changed=texts({"b": 2}))
    await db.aflush()
    await wipe(redis_url, key_prefix)
    record = await db.aload("s")
    assert record is not None and record.state == {"a": 1, "b": 2} and record.version == 2
    assert await db.asave("s", expected_version=2, changed=texts({"c": 3})) == 3
    await db.aflush()
    copy = await durable.aload("s")
    assert copy is not None and copy.version == 3 and copy.state == {"a": 1, "b": 2, "c": 3}


async def test_empty_redis_never_overwrites_a_durable_snapshot(
    db: RedisDb, durable: InMemoryDb, redis_url: str, key_prefix: str
) -> None:
    """Creating a session that only the durable store still has fails as stale."""
    await db.asave("s", expected_version=0, changed=texts({"keep": True}))
    await db.asave("s", expected_version=1, changed=texts({"keep": "yes"}))
    await db.aflush()
    await wipe(redis_url, key_prefix)
    with pytest.raises(StaleVersionError):
        await db.asave("s", expected_version=0, changed=texts({"keep": False}))
    copy = await durable.aload("s")
    assert copy is not None and copy.state == {"keep": "yes"} and copy.version == 2


async def test_save_after_expiry_mid_run_reads_back_and_succeeds(
    db: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """A session that vanished from Redis during a run is read back and the save lands."""
    await db.asave("s", expected_version=0, changed=texts({"a": 1}))
    await db.aflush()
    await wipe(redis_url, key_prefix)
    assert await db.asave("s", expected_version=1, changed=texts({"a": 2})) == 2
    record = await db.aload("s")
    assert record is not None and record.state == {"a": 2}


async def test_only_clean_sessions_expire_and_they_come_back(
    redis_url: str, key_prefix: str, durable: InMemoryDb
) -> None:
    """With a ttl, a dirty session never expires; once snapshotted it may, and returns."""
    store = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        ttl=1,
        run_snapshotter=False,
    )
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        await store.asave("s", expected_version=0, changed=texts({"a": 1}))
        from core.db.redis.keys import SessionKeys

        keys = SessionKeys(key_prefix, "s")
        assert await client.pttl(keys.meta) == -1  # dirty: no expiry
        await store.aflush()
        assert 0 < await client.pttl(keys.meta) <= 1000
        await client.delete(keys.state, keys.meta, keys.hist)  # as if the ttl elapsed
        record = await store.aload("s")
        assert record is not None and record.state == {"a": 1} and record.version == 1
    finally:
        await client.aclose()
        await store.aclose()


async def test_write_through_reaches_durable_store_before_returning(
    redis_url: str, key_prefix: str, durable: InMemoryDb
) -> None:
    """write_through=True: when asave returns the durable store has the version."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, write_through=True
    )
    try:
        await store.asave("s", expected_version=0, changed=texts({"a": 1}))
        await store.asave("s", expected_version=1, changed=texts({"a": 2}))
        copy = await durable.aload("s")
        assert copy is not None and copy.version == 2 and copy.state == {"a": 2}
        assert await store.dirty.count() == 0
    finally:
        await store.aclose()


async def test_background_snapshotter_runs_and_aclose_flushes(
    redis_url: str, key_prefix: str, durable: InMemoryDb
) -> None:
    """The background snapshotter, once started, copies saves; aclose copies what is left."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, snapshot_interval=0.01
    )
    store.start_snapshotter()
    await store.asave("a", expected_version=0, changed=texts({"n": 1}))
    for _ in range(500):
        if await durable.aload("a") is not None:
            break
        await asyncio.sleep(0.01)
    assert await durable.aload("a") is not None
    await store.asave("b", expected_version=0, changed=texts({"n": 2}))
    await store.aclose()
    copy = await durable.aload("b")
    assert copy is not None and copy.state == {"n": 2}


async def test_delete_during_snapshot_does_not_resurrect(db: RedisDb, durable: InMemoryDb) -> None:
    """A session deleted while its snapshot was in flight is removed from the durable store."""
    await db.asave("s", expected_version=0, changed=texts({"a": 1}))

    async def delete_meanwhile(batch: list[SessionRecord]) -> None:
        await db.adelete("s")

    await Snapshotter(db.dirty, durable, after_commit=delete_meanwhile).drain()
    assert await durable.aload("s") is None
    assert await db.aload("s") is None
    assert await db.dirty.count() == 0


async def test_listing_and_history_include_the_durable_store(
    db: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """Sessions only in the durable store are listed; old versions come from it too."""
    await db.asave("old", expected_version=0, changed=texts({"v": 1}))
    await db.aflush()
    await db.asave("old", expected_version=1, changed=texts({"v": 2}))
    await db.aflush()
    await wipe(redis_url, key_prefix)
    await db.asave("new", expected_version=0, changed=texts({"v": 1}))
    assert {r.session_id for r in await db.alist_sessions()} == {"old", "new"}
    await db.aload("old")
    await db.asave("old", expected_version=2, changed=texts({"v": 3}))
    assert [e.version for e in await db.ahistory("old")] == [3, 2, 1]


class BrokenDurable(InMemoryDb):
    """A durable store whose snapshot writes fail, as a database that went down."""

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        raise ConnectionError("database is down")


async def test_write_through_failure_undoes_the_save_and_says_nothing_was_written(
    redis_url: str, key_prefix: str
) -> None:
    """A durable write that failed before committing undoes the Redis save: a retry is safe."""
    store = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=BrokenDurable(),
        write_through=True,
        run_snapshotter=False,
    )
    try:
        with pytest.raises(StoreUnavailableError, match="undone; nothing was written"):
            await store.asave("s", expected_version=0, changed=texts({"a": 1}))
        assert await store.aload("s") is None
        assert await store.dirty.count() == 0
    finally:
        await store.aclose()
