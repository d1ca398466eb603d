"""The snapshotter on a real local cluster: dirty sets per bucket, batched reads, drains.

The snapshot tests that do not wipe Redis by hand run here unchanged; the dirty-queue
tests below check what a cluster changes: buckets live on different primaries, and a
batch reads or retires them with one pipeline per node.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.redis.keys import BUCKETS
from core.db.snapshot import Snapshotter
from tests.db.test_snapshot import (  # noqa: F401  (the tests, collected here)
    test_background_snapshotter_runs_and_aclose_flushes,
    test_change_during_inflight_snapshot_is_not_lost,
    test_crash_between_commit_and_cleanup_loses_and_duplicates_nothing,
    test_delete_during_snapshot_does_not_resurrect,
    test_snapshotter_copies_dirty_sessions_in_batches,
    test_write_through_failure_undoes_the_save_and_says_nothing_was_written,
    test_write_through_reaches_durable_store_before_returning,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def durable() -> InMemoryDb:
    """The durable store."""
    return InMemoryDb()


@pytest.fixture
async def db(redis_url: str, key_prefix: str, durable: InMemoryDb) -> AsyncIterator[RedisDb]:
    """A RedisDb on the cluster snapshotting to ``durable``; tests drain by hand."""
    store = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    yield store
    await store.aclose()


async def test_sessions_of_every_bucket_drain_across_all_primaries(
    db: RedisDb, durable: InMemoryDb
) -> None:
    """2,000 sessions spread over all 256 buckets (all 3 primaries) drain completely."""
    sessions = 2000
    for n in range(sessions):
        await db.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
    assert await db.dirty.count() == sessions
    db.round_trips.reset()
    batch = await db.dirty.abatch(sessions)
    # one pipeline per primary for the even shares, one for what uneven buckets still owe
    assert len(batch) == sessions and db.round_trips.reset() <= 6
    assert await Snapshotter(db.dirty, durable, batch_size=500).drain() == sessions
    assert await db.dirty.count() == 0
    for n in (0, 777, sessions - 1):
        record = await durable.aload(f"s{n}")
        assert record is not None and record.state == {"n": n}


async def test_listing_and_quarantine_read_every_bucket(db: RedisDb) -> None:
    """list_recent and quarantined gather every bucket's entries from every node."""
    for n in range(300):
        await db.asave(f"l{n}", expected_version=0, changed=texts({"n": n}))
    listed = await db.dirty.list_recent(owner_id=None, limit=1000)
    assert {r.session_id for r in listed} == {f"l{n}" for n in range(300)}
    record = await db.aload("l5")
    assert record is not None
    assert await db.dirty.aquarantine(record, "refused by the durable store")
    parked = await db.dirty.quarantined()
    assert [(e.session_id, e.reason) for e in parked] == [("l5", "refused by the durable store")]
    assert await db.dirty.count() == 299
    assert BUCKETS == 256  # the bucket count is part of the key schema


async def test_batched_read_returns_every_text_byte_exactly(db: RedisDb) -> None:
    """abatch hands the snapshotter each key's JSON text and the data exactly as saved."""
    hostile = {
        "ünï ☃": ["😀", 'a"b', "back\\slash", "/slash/", "\u0001\t\n", "\u2028"],
        "empty": {},
        "big": "x" * 100_000,
        "": None,
        "n": 1.5e300,
    }
    saved = texts(hostile)
    await db.asave("h", expected_version=0, changed=saved, data='{"name": "ünï"}')
    await db.asave("bare", expected_version=0, changed={})
    by_id = {r.session_id: r for r in await db.dirty.abatch(10)}
    assert dict(by_id["h"].texts) == saved and by_id["h"].data == '{"name": "ünï"}'
    assert by_id["h"].state == hostile
    assert dict(by_id["bare"].texts) == {}
