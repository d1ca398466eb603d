"""One session the durable store refuses never stops the others from being snapshotted."""

from __future__ import annotations

import secrets

import pytest

from core.db.codec import encode_delta as texts
from core.db.limits import StateLimits
from core.db.postgres import PostgresDb
from core.db.records import SnapshotStatus
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.snapshot import Snapshotter
from core.exceptions import StoreUnavailableError

# past PostgreSQL's B-tree entry limit (random, so compression cannot shrink it)
LONG_ID = "slack:T1:C1:" + secrets.token_hex(1500)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_poison_sessions_among_50_do_not_stop_the_others(
    redis_url: str, key_prefix: str, postgres_schema: tuple[str, str]
) -> None:
    """A 3,000-char id and a NUL user id: the 49 others reach PostgreSQL; both are parked."""
    url, schema = postgres_schema
    roomy = StateLimits(max_id_bytes=10_000)  # as a store written before ids were checked
    durable = PostgresDb(db_url=url, schema=schema, limits=roomy)
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, limits=roomy)
    hot.run_snapshotter = False
    try:
        for n in range(48):
            await hot.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
        secret = texts({"n": -1, "api_token": "sk-9f3e"})
        await hot.asave(LONG_ID, expected_version=0, changed=secret)
        await hot.asave("nul-user", expected_version=0, changed=texts({"n": -2}))
        # a NUL in the user id, as written by an older version that did not check ids
        await hot._clients.get().hset(SessionKeys(key_prefix, "nul-user").meta, "user", "u\x00")
        clock = Clock()
        snapshotter = Snapshotter(
            hot.dirty, durable, batch_size=10, max_attempts=3, backoff=5.0, clock=clock
        )
        for _ in range(3):
            await snapshotter.drain()
            clock.now += 60.0  # past every backoff
        for n in range(48):
            copy = await durable.aload(f"s{n}")
            assert copy is not None and copy.state == {"n": n}
        assert await hot.dirty.count() == 0
        status = await hot.asnapshot_status()
        assert status is not None
        parked = {e.session_id: e for e in status.quarantined}
        assert set(parked) == {LONG_ID, "nul-user"}
        assert "NUL" in parked["nul-user"].reason
        assert "sk-9f3e" not in parked[LONG_ID].reason  # errors never carry state values
        assert snapshotter.quarantined == 2
        # parked sessions stay served from Redis, and never expire there
        record = await hot.aload(LONG_ID)
        assert record is not None and record.state["n"] == -1
        assert await hot._clients.get().pttl(SessionKeys(key_prefix, LONG_ID).meta) == -1
    finally:
        await hot.aclose()
        await durable.aclose()


async def test_a_refused_session_is_retried_with_backoff_before_quarantine(
    redis_url: str, key_prefix: str, postgres_schema: tuple[str, str]
) -> None:
    """Refusals are counted and backed off; the session is only parked at max_attempts."""
    url, schema = postgres_schema
    durable = PostgresDb(db_url=url, schema=schema)  # default limits refuse the long id
    hot = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        limits=StateLimits(max_id_bytes=10_000),
        run_snapshotter=False,
    )
    try:
        await hot.asave(LONG_ID, expected_version=0, changed=texts({"n": 1}))
        clock = Clock()
        snapshotter = Snapshotter(hot.dirty, durable, max_attempts=2, backoff=5.0, clock=clock)
        assert await snapshotter.drain_once() == 0  # refused once: stays dirty
        assert await snapshotter.drain_once() == 0  # backing off: not even tried
        assert await hot.asnapshot_status() == SnapshotStatus(dirty=1)
        clock.now += 5.0
        assert await snapshotter.drain_once() == 1  # second refusal: parked
        assert await hot.dirty.count() == 0
        status = await hot.asnapshot_status()
        assert status is not None and status.dirty == 0
        [entry] = status.quarantined
        assert entry.session_id == LONG_ID and "InvalidIdError" in entry.reason
        # a later save makes it dirty again, so it is retried
        await hot.asave(LONG_ID, expected_version=1, changed=texts({"n": 2}))
        assert await hot.dirty.count() == 1
    finally:
        await hot.aclose()
        await durable.aclose()


async def test_a_durable_store_that_is_down_blames_no_session(
    redis_url: str, key_prefix: str
) -> None:
    """PostgreSQL unreachable: the pass fails as a whole and nothing is quarantined."""
    durable = PostgresDb(db_url="postgresql://postgres@127.0.0.1:1/test", connect_timeout=1)
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix)  # sessions made while it was up
    try:
        for n in range(3):
            await hot.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
        snapshotter = Snapshotter(hot.dirty, durable, max_attempts=1)
        with pytest.raises(StoreUnavailableError):
            await snapshotter.drain_once()
        assert await hot.dirty.count() == 3 and await hot.dirty.quarantined() == []
    finally:
        await hot.aclose()
        await durable.aclose()
