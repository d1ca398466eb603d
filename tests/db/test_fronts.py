"""The record of which Redis fronts a durable store (``core.db.fronts``), on every store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.db.base import BaseDb
from core.db.fronts import Front, afronts, arecord_front
from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb


@pytest.fixture(params=["sqlite", "postgres"])
async def durable(request: pytest.FixtureRequest) -> AsyncIterator[BaseDb]:
    """A fresh SQL durable store: a SQLite file, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        tmp_path = request.getfixturevalue("tmp_path")
        db: BaseDb = SqliteDb(db_file=tmp_path / "durable.db")
    else:
        url, schema = request.getfixturevalue("postgres_schema")
        db = PostgresDb(db_url=url, schema=schema)
    try:
        yield db
    finally:
        await db.aclose()


async def test_a_redis_front_is_recorded_and_refreshed(
    durable: BaseDb, redis_url: str, key_prefix: str
) -> None:
    """Recording twice keeps one row per (address, prefix), with the latest host and time."""
    assert await afronts(durable) == []
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable)
    other = RedisDb(db_url=redis_url, key_prefix=f"{key_prefix}b:", snapshot_to=durable)
    try:
        await arecord_front(hot, seen_by="bot-1", now=100.0)
        await arecord_front(other, seen_by="bot-2", now=150.0)
        recorded = await arecord_front(hot, seen_by="bot-3", now=200.0)
    finally:
        await hot.aclose()
        await other.aclose()
    assert recorded == Front("127.0.0.1:6379", key_prefix, "bot-3", 200.0)
    assert await afronts(durable) == [
        Front("127.0.0.1:6379", key_prefix, "bot-3", 200.0),
        Front("127.0.0.1:6379", f"{key_prefix}b:", "bot-2", 150.0),
    ]


async def test_stores_that_are_not_redis_over_sql_record_nothing(
    durable: BaseDb, redis_url: str, key_prefix: str
) -> None:
    """The durable store itself, Redis alone or over process memory: nothing recorded."""
    alone = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    memory = InMemoryDb()
    over_memory = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=memory)
    try:
        for store in (durable, alone, over_memory):
            assert await arecord_front(store, seen_by="bot-1") is None
    finally:
        await alone.aclose()
        await over_memory.aclose()
    assert await afronts(durable) == []
    assert await afronts(memory) == []
