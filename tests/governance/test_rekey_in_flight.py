"""Rekey while a snapshot pass is in flight: nothing is left under the old key.

A pass reads a session from Redis (sealed partly under the old key), rekey runs to
its end and says the old key may go, then the pass commits. The durable store must
not end up holding what the old key sealed: every row is scanned afterwards, and a
store given the new key alone reads everything.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from bots.cli.state_rekey import conclusion
from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.snapshot import Snapshotter
from core.governance.rekey import rekey
from tests.db.test_encryption import (
    K1,
    K2,
    SECRET,
    DurableFactory,
    durable_factory,
    redis_texts,
    sql_rows,
)
from tests.governance.test_rekey import NEW, OLD

__all__ = ["durable_factory"]  # the fixture, shared with test_encryption


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain client to look at what RedisDb wrote."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def _until(check: object, what: str) -> None:
    """Wait (bounded) until ``check()`` is true; fail naming ``what`` otherwise."""
    for _ in range(1000):
        if await check():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)
    pytest.fail(f"gave up waiting: {what}")


async def test_a_snapshot_pass_that_read_before_rekey_commits_nothing_under_the_old_key(
    redis_url: str, key_prefix: str, raw: aioredis.Redis, durable_factory: DurableFactory
) -> None:
    """Read before the Redis rewrite, committed after rekey: no old-key text anywhere."""
    old_ring = StateCipher([K1])
    durable = durable_factory(old_ring)
    hot = RedisDb(redis_url, snapshot_to=durable, key_prefix=key_prefix, cipher=old_ring)
    await hot.asave("s", expected_version=0, changed=texts({"card": SECRET, "n": 1}))
    await hot.aflush()
    await hot.aclose()
    await durable.aclose()

    # every process restarted with the new key first, the old one kept to read with
    ring = StateCipher([K2, K1])
    durable = durable_factory(ring)
    hot = RedisDb(redis_url, snapshot_to=durable, key_prefix=key_prefix, cipher=ring)
    read, commit = asyncio.Event(), asyncio.Event()

    async def hold(batch: list[SessionRecord]) -> None:
        read.set()
        await commit.wait()

    in_flight = Snapshotter(hot.dirty, durable, before_commit=hold)
    queue = SessionKeys(key_prefix, "s").queue
    try:
        async with hot.session_lock("s") as lease:  # a run holds the session
            rotation = asyncio.ensure_future(rekey(hot))
            await _until(lambda: raw.zcard(queue), "rekey waiting for the run's lease")
            # the run saves: "n" sealed under the new key, "card" still under the old
            await hot.asave("s", expected_version=1, changed=texts({"n": 2}), lease=lease)
            snapshot = asyncio.ensure_future(in_flight.drain_once())
            await asyncio.wait_for(read.wait(), 10)  # the pass holds version 2 as read
        report = await rotation
        assert report.failed == [] and not any(p.moved for p in report.passes)
        said = conclusion(report, ring.ring.ids)
        assert "may now be removed" in said
        commit.set()
        assert await snapshot == 1  # committed, and retired from the dirty set
        assert await hot.dirty.count() == 0

        for where, blob in (
            ("durable rows", "\n".join(sql_rows(durable))),
            ("redis keys", "\n".join(await redis_texts(raw, key_prefix))),
        ):
            assert f"$sb1:{OLD}:" not in blob, f"old-key ciphertext left in the {where}"
            assert f"$sb1:{NEW}:" in blob and SECRET not in blob
    finally:
        commit.set()
        await hot.aclose()
        await durable.aclose()

    # what the conclusion promised: the new key alone reads every version
    new_only = durable_factory(StateCipher([K2]))
    try:
        record = await new_only.aload("s")
        assert record is not None and record.state == {"card": SECRET, "n": 2}
        assert [e.state for e in await new_only.ahistory("s")] == [
            {"card": SECRET, "n": 2},
            {"card": SECRET, "n": 1},
        ]
    finally:
        await new_only.aclose()
