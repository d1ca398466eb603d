"""A cached session is trusted only within one Redis incarnation.

``open_run(known=...)`` may answer "unchanged" without reading the state; after Redis
restarts (a new run id: the epoch) the same version number may name other content, so
the answer must be a full load through the repair path of ``core/db/redis/repair.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.db.codec import encode_delta as texts
from core.db.records import KnownVersion
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
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


async def test_after_a_restart_the_known_version_is_loaded_again(
    stores: tuple[RedisDb, SqliteDb], own_redis: RedisServer
) -> None:
    """Same version and save after a restart from an RDB: a full load, a new epoch."""
    hot, _ = stores
    await hot.asave("s", expected_version=0, changed=texts({"n": 1}))
    await hot.aflush()
    before = await hot.aload("s")
    assert before is not None
    own_redis.save_rdb()
    own_redis.restart()
    async with hot.open_run("s", known=KnownVersion.of(before)) as opened:
        assert not opened.unchanged
        assert opened.record is not None and opened.record.state == {"n": 1}
        assert opened.record.epoch and opened.record.epoch != before.epoch


async def test_a_redis_behind_the_durable_store_is_repaired_not_served_from_cache(
    stores: tuple[RedisDb, SqliteDb], own_redis: RedisServer
) -> None:
    """Redis back from an older RDB holds exactly the cached version: the durable one wins."""
    hot, _ = stores
    await hot.asave("s", expected_version=0, changed=texts({"n": 1}))
    cached = await hot.aload("s")
    assert cached is not None
    own_redis.save_rdb()  # Redis will come back with version 1
    await hot.asave("s", expected_version=1, changed=texts({"n": 2}))
    await hot.aflush()  # the durable store has version 2
    own_redis.restart()
    async with hot.open_run("s", known=KnownVersion.of(cached)) as opened:
        assert not opened.unchanged
        assert opened.record is not None
        assert (opened.record.version, opened.record.state) == (2, {"n": 2})
