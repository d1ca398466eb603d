"""Crashes of Redis and of the snapshotter lose nothing that was acknowledged durable."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sqlite import SqliteDb
from core.exceptions import StoreUnavailableError
from tests.db.crash.conftest import RedisServer

ROOT = Path(__file__).resolve().parents[3]


async def test_redis_killed_after_snapshot_comes_back_from_durable(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """kill -9 Redis after a snapshot, restart it empty: the state returns from SQLite."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    await store.asave("s", expected_version=0, changed=texts({"items": ["a"]}))
    await store.asave("s", expected_version=1, changed=texts({"items": ["a", "b"]}))
    await store.aflush()
    own_redis.kill()
    with pytest.raises(StoreUnavailableError, match=f"127.0.0.1:{own_redis.port}"):
        await store.aload("s")
    own_redis.start()
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=durable, run_snapshotter=False)
    record = await fresh.aload("s")
    assert record is not None and record.state == {"items": ["a", "b"]} and record.version == 2
    assert await fresh.asave("s", expected_version=2, changed=texts({"items": []})) == 3
    await fresh.aflush()
    await fresh.aclose()
    await store.aclose()
    copy = await durable.aload("s")
    assert copy is not None and copy.version == 3
    await durable.aclose()


async def test_snapshotter_killed_between_commit_and_cleanup(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """A snapshotter process killed after the durable commit: rerun loses and doubles nothing."""
    db_file = tmp_path / "d.db"
    store = RedisDb(db_url=own_redis.url, run_snapshotter=False)
    for n in range(5):
        await store.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
        await store.asave(f"s{n}", expected_version=1, changed=texts({"n": n * 10}))
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        # a watchdog: a process its test failed to kill exits by itself
        import os, threading
        _dog = threading.Timer(120, os._exit, (3,)); _dog.daemon = True; _dog.start()
        from core.db.redis import RedisDb
        from core.db.snapshot import Snapshotter
        from core.db.sqlite import SqliteDb

        async def die(batch):
            os.kill(os.getpid(), signal.SIGKILL)  # after the commit, before the cleanup

        async def main():
            hot = RedisDb(db_url={own_redis.url!r}, run_snapshotter=False)
            durable = SqliteDb(db_file={str(db_file)!r})
            await Snapshotter(hot.dirty, durable, after_commit=die).drain_once()

        asyncio.run(main())
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, timeout=60)
    assert proc.returncode == -9
    assert await store.dirty.count() == 5  # the cleanup never ran
    durable = SqliteDb(db_file=db_file)
    rerun = Snapshotter(store.dirty, durable)
    assert await rerun.drain() == 5
    assert rerun.written == 0  # every version was already committed: no duplicate
    assert await store.dirty.count() == 0
    for n in range(5):
        copy = await durable.aload(f"s{n}")
        assert copy is not None and copy.state == {"n": n * 10} and copy.version == 2
        assert [e.version for e in await durable.ahistory(f"s{n}")] == [2]
    await durable.aclose()
    await store.aclose()


async def test_write_through_loses_nothing_when_redis_dies(
    own_redis: RedisServer, tmp_path: Path
) -> None:
    """With write_through, a save acknowledged just before kill -9 survives the restart."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(db_url=own_redis.url, snapshot_to=durable, write_through=True)
    version = 0
    for n in range(5):
        version = await store.asave("s", expected_version=version, changed=texts({"n": n}))
    own_redis.kill()
    own_redis.start()
    fresh = RedisDb(db_url=own_redis.url, snapshot_to=durable, write_through=True)
    record = await fresh.aload("s")
    assert record is not None and record.state == {"n": 4} and record.version == 5
    await fresh.aclose()
    await store.aclose()
    await durable.aclose()
