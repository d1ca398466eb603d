"""The background snapshotter runs only when the app starts it, never because of a save."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bots.app.build import start_snapshots
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb


@pytest.fixture
async def durable(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    """A durable store on a fresh SQLite file."""
    store = SqliteDb(db_file=tmp_path / "d.db")
    yield store
    await store.aclose()


async def test_a_save_starts_nothing(redis_url: str, key_prefix: str, durable: SqliteDb) -> None:
    """Saving on a store that may snapshot starts no snapshotter; aclose still flushes."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable)
    await store.asave("s", expected_version=0, changed=texts({"n": 1}))
    assert not store.snapshotting
    assert await durable.aload("s") is None
    await store.aclose()
    copy = await durable.aload("s")
    assert copy is not None and copy.state == {"n": 1}


async def test_started_snapshotter_copies_in_the_background(
    redis_url: str, key_prefix: str, durable: SqliteDb
) -> None:
    """After start_snapshotter, saves reach the durable store without a flush."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, snapshot_interval=0.01
    )
    try:
        assert start_snapshots(store) is store and store.snapshotting
        await store.asave("a", expected_version=0, changed=texts({"n": 1}))
        for _ in range(1000):
            if await durable.aload("a") is not None:
                break
            await asyncio.sleep(0.01)
        copy = await durable.aload("a")
        assert copy is not None and copy.state == {"n": 1}
    finally:
        await store.aclose()
    assert not store.snapshotting


async def test_start_snapshotter_refuses_what_cannot_snapshot(
    redis_url: str, key_prefix: str, durable: SqliteDb
) -> None:
    """No durable store, or run_snapshotter=False: a clear error; start_snapshots skips it."""
    alone = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    other = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    try:
        with pytest.raises(ValueError, match="no durable store"):
            alone.start_snapshotter()
        with pytest.raises(ValueError, match="run_snapshotter=False"):
            other.start_snapshotter()
        start_snapshots(other)
        assert not other.snapshotting
    finally:
        await alone.aclose()
        await other.aclose()
