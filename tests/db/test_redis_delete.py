"""A session delete in Redis leaves nothing of the session: its conflict copy and its
quarantine entry go in the same script as its other keys."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.sqlite import SqliteDb
from core.governance.sessions import delete_session


@pytest.fixture
async def hot(redis_url: str, key_prefix: str, tmp_path: Path) -> AsyncIterator[RedisDb]:
    """A RedisDb snapshotting to SQLite, under this test's key prefix."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    try:
        yield store
    finally:
        await store.aclose()
        await durable.aclose()


async def _leftovers(redis_url: str, key_prefix: str, keys: SessionKeys) -> list[str]:
    """Keys under the prefix that still name the session (the tombstone is its own)."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        found = [k async for k in client.scan_iter(match=f"*{key_prefix}*", count=1000)]
        entries = await client.hkeys(keys.bucket.quarantine)
    finally:
        await client.aclose()
    named = [k for k in found if keys.hashed in k and k != keys.gone]
    return named + [f"quarantine entry {h}" for h in entries if h == keys.hashed]


async def test_delete_removes_the_conflict_copy_and_quarantine_entry(
    hot: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """delete_session alone leaves no key of the session but its tombstone."""
    await hot.asave("s", expected_version=0, changed=texts({"secret": "ana's list"}))
    keys = SessionKeys(key_prefix, "s")
    record = await hot.dirty.abatch(10)
    assert await hot.dirty.aquarantine(record[0], "RuntimeError: refused")
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:  # what the repair path sets aside when a Redis copy reused a durable version
        await client.set(keys.conflict, json.dumps({"state": {"secret": "ana's list"}}))
    finally:
        await client.aclose()
    assert len(await _leftovers(redis_url, key_prefix, keys)) >= 4  # the fixture is real

    await delete_session(hot, "s")

    assert await _leftovers(redis_url, key_prefix, keys) == []
    assert await hot.dirty.quarantined() == []
    assert await hot.aload("s") is None
