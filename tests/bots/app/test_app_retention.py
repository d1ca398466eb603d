"""The snapshotter a bot process starts in itself enforces STATEBOT_RETENTION_* too."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bots.app.build import serving_store, start_snapshots
from bots.app.retention import policy_from_settings
from bots.settings import Settings
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.governance.retention import DAY

OFFLINE: dict[str, Any] = {"openai_api_key": None, "openai_base_url": None, "redis_url": None}
THREAD = "slack:T1:C1:1700.1"
CHANNEL = "slack:T1:C2"


@pytest.fixture
async def durable(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    """A durable store on a fresh SQLite file."""
    store = SqliteDb(db_file=tmp_path / "d.db")
    yield store
    await store.aclose()


async def _gone(store: RedisDb, durable: SqliteDb, session_id: str) -> bool:
    """Whether neither Redis nor the durable store holds the session."""
    return await store.aload(session_id) is None and await durable.aload(session_id) is None


async def test_in_process_snapshotter_expires_an_idle_session(
    redis_url: str, key_prefix: str, durable: SqliteDb
) -> None:
    """With a thread retention of 1 day, 2 days on, the idle thread session leaves both
    stores through the background snapshotter; the channel session (no rule) stays."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, snapshot_interval=0.01
    )
    try:
        for session_id in (THREAD, CHANNEL):
            await store.asave(session_id, expected_version=0, changed=texts({"n": 1}))
        settings = Settings(**{**OFFLINE, "statebot_retention_thread_days": 1})
        two_days_on = lambda: time.time() + 2 * DAY  # noqa: E731
        start_snapshots(store, retention=policy_from_settings(settings), clock=two_days_on)
        for _ in range(1000):  # bounded wait for the background thread's first pass
            if await _gone(store, durable, THREAD):
                break
            await asyncio.sleep(0.01)
        assert await _gone(store, durable, THREAD)
        kept = await store.aload(CHANNEL)
        assert kept is not None and kept.state == {"n": 1}
    finally:
        await store.aclose()


async def test_no_retention_settings_start_no_retention_pass(
    redis_url: str, key_prefix: str, durable: SqliteDb
) -> None:
    """Without STATEBOT_RETENTION_* the in-process snapshotter expires nothing, ever."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, snapshot_interval=0.01
    )
    try:
        await store.asave(THREAD, expected_version=0, changed=texts({"n": 1}))
        policy = policy_from_settings(Settings(**OFFLINE))
        start_snapshots(store, retention=policy, clock=lambda: time.time() + 1000 * DAY)
        for _ in range(1000):  # the snapshot copy shows the thread has made a pass
            if await durable.aload(THREAD) is not None:
                break
            await asyncio.sleep(0.01)
        assert store._snapshot_thread is not None
        assert store._snapshot_thread.retention is None
        assert await store.aload(THREAD) is not None
    finally:
        await store.aclose()


async def test_serving_store_starts_the_snapshotter_with_the_settings_policy(
    tmp_path: Path,
) -> None:
    """The store a serving process builds runs retention when STATEBOT_RETENTION_* is set."""
    settings = Settings(
        **{
            **OFFLINE,
            "redis_url": "redis://127.0.0.1:1/0",  # never answers: the thread stays quiet
            "statebot_db_url": f"sqlite:///{tmp_path / 'bot.db'}",
            "statebot_retention_dm_days": 30,
        }
    )
    store = serving_store(settings)
    assert isinstance(store, RedisDb) and store._snapshot_thread is not None
    try:
        assert store._snapshot_thread.retention is not None
    finally:
        store._snapshot_thread.stop()
        store._snapshot_thread = None
        assert store.snapshot_to is not None
        await store.snapshot_to.aclose()
