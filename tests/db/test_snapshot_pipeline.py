"""Overlapped drains: batches in flight never share a session, and a failure loses nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest

from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.exceptions import StoreUnavailableError


class SlowDurable(InMemoryDb):
    """A durable store whose batch writes take a while, watched for overlap; it goes
    down (writes and pings fail) from the ``fail_at``-th batch on."""

    def __init__(self, fail_at: int | None = None) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.calls = 0
        self.most_at_once = 0
        self.writing: list[set[str]] = []
        self.shared: list[str] = []

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[bool | Exception]:
        self.calls += 1
        if self.fail_at is not None and self.calls >= self.fail_at:
            raise StoreUnavailableError("durable store down (test)")
        ids = {r.session_id for r in records}
        for other in self.writing:
            self.shared += sorted(ids & other)
        self.writing.append(ids)
        self.most_at_once = max(self.most_at_once, len(self.writing))
        try:
            await asyncio.sleep(0.02)  # long enough for the next read to land meanwhile
            return await super().aupsert_snapshots(records)
        finally:
            self.writing.remove(ids)

    async def aping(self) -> None:
        if self.fail_at is not None and self.calls >= self.fail_at:
            raise StoreUnavailableError("durable store down (test)")


@pytest.fixture
async def hot(redis_url: str, key_prefix: str) -> AsyncIterator[RedisDb]:
    """A RedisDb without a background snapshotter; tests drain by hand."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    yield store
    await store.aclose()


async def fill(hot: RedisDb, n: int) -> list[str]:
    """N dirty sessions."""
    ids = [f"s{i}" for i in range(n)]
    for i, sid in enumerate(ids):
        await hot.asave(sid, expected_version=0, changed=texts({"n": i}))
    return ids


async def test_abatch_reads_its_share_and_skips_the_excluded(hot: RedisDb) -> None:
    """abatch gives exactly ``limit`` distinct sessions, none excluded, in two round trips."""
    ids = await fill(hot, 600)
    await hot.dirty.abatch(1)  # the script is loaded (a fresh server answers NOSCRIPT once)
    hot.round_trips.reset()
    first = await hot.dirty.abatch(250)
    assert hot.round_trips.reset() <= 2  # the even shares, then what uneven buckets owe
    taken = {r.session_id for r in first}
    assert len(first) == len(taken) == 250
    second = await hot.dirty.abatch(1000, exclude=taken)
    rest = {r.session_id for r in second}
    assert rest == set(ids) - taken and len(second) == 350
    assert await hot.dirty.abatch(1000, exclude=set(ids)) == []
    assert await hot.dirty.count() == 600  # reading retires nothing


async def test_overlapped_passes_never_write_one_session_twice(hot: RedisDb) -> None:
    """drain writes batches at once, disjoint, and every session arrives once."""
    ids = await fill(hot, 300)
    durable = SlowDurable()
    snapshotter = Snapshotter(hot.dirty, durable, batch_size=40, overlap=3)
    assert await snapshotter.drain() == 300
    assert durable.most_at_once >= 2 and durable.shared == []
    assert snapshotter.written == 300 and await hot.dirty.count() == 0
    stored = await durable.aload_many(ids)
    assert sorted(r.state["n"] for r in stored.values()) == list(range(300))


async def test_store_down_mid_drain_stops_it_and_keeps_the_rest_dirty(hot: RedisDb) -> None:
    """The durable store failing on the 3rd batch: the drain raises that error, the
    batches in flight finish, and every session not retired is still dirty."""
    ids = await fill(hot, 200)
    durable = SlowDurable(fail_at=3)
    snapshotter = Snapshotter(hot.dirty, durable, batch_size=30, overlap=2)
    with pytest.raises(StoreUnavailableError, match="durable store down"):
        await snapshotter.drain()
    assert durable.calls == 3  # no batch started after the failure was seen
    stored = set(await durable.aload_many(ids))
    assert len(stored) == 60  # the two batches written before it went down
    assert await hot.dirty.count() == 200 - len(stored)  # the rest: still dirty
    durable.fail_at = None  # back up
    assert await snapshotter.drain() == 200 - len(stored)
    assert set(await durable.aload_many(ids)) == set(ids)


async def test_a_session_saved_during_an_overlapped_drain_arrives_at_its_last_version(
    hot: RedisDb,
) -> None:
    """A save landing between a batch's commit and its retire keeps the session dirty,
    and the same drain copies the newer version."""
    await fill(hot, 120)
    saved: set[str] = set()

    async def save_meanwhile(batch: list[SessionRecord]) -> None:
        for record in batch[:2]:
            if record.session_id not in saved:
                saved.add(record.session_id)
                await hot.asave(record.session_id, expected_version=1, changed=texts({"n": -1}))

    durable = SlowDurable()
    snapshotter = Snapshotter(hot.dirty, durable, batch_size=25, after_commit=save_meanwhile)
    await snapshotter.drain()
    assert await hot.dirty.count() == 0 and saved
    for sid in saved:
        record = await durable.aload(sid)
        assert record is not None and record.version == 2 and record.state == {"n": -1}


async def test_no_batch_starts_after_a_failed_one(hot: RedisDb) -> None:
    """A batch failing while the next is read: that next batch is never written, the
    slow batch before it still finishes, and the rest stays dirty."""
    ids = await fill(hot, 100)
    durable = SlowDurable(fail_at=2)
    snapshotter = Snapshotter(hot.dirty, durable, batch_size=20, overlap=3)
    with pytest.raises(StoreUnavailableError):
        await snapshotter.drain()
    assert durable.calls == 2
    assert len(await durable.aload_many(ids)) == 20
    assert await hot.dirty.count() == 80
