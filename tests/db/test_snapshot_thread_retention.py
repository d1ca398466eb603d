"""The background snapshot thread runs a retention pass on its own loop and, when it
ends, closes the Redis client the store opened on that loop."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb


@pytest.fixture
async def store(redis_url: str, key_prefix: str, tmp_path: Path) -> AsyncIterator[RedisDb]:
    """A RedisDb that may snapshot to SQLite, polled every 10 ms."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, snapshot_interval=0.01
    )
    try:
        yield db
    finally:
        await db.aclose()
        await durable.aclose()


async def test_the_thread_closes_the_client_its_retention_pass_opened(
    store: RedisDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass that used the store on the thread's loop leaves no client of that loop
    behind, so nothing is left for the garbage collector to close on a closed loop."""
    await store.asave("s", expected_version=0, changed=texts({"n": 1}))
    ran = asyncio.Event()
    caller = asyncio.get_running_loop()

    async def retention_pass() -> None:
        assert await store.aload("s") is not None  # a store operation on the thread's loop
        caller.call_soon_threadsafe(ran.set)

    store.start_snapshotter(retention=retention_pass)
    await asyncio.wait_for(ran.wait(), 10)  # bounded wait for the thread's first pass
    thread = store._snapshot_thread
    assert thread is not None and thread._loop is not None
    await asyncio.to_thread(thread.stop)

    assert thread._loop not in store._clients._by_loop
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    gc.collect()
    assert unraisable == []
