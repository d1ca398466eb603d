"""open_run and save-with-release: a run's two steps, on every store.

``open_run`` takes the session's lease and hands back the stored session, or, given
the version a cache knows, says it is unchanged; ``asave(..., release=True)`` writes
the last delta and gives the lease back in the same atomic step. On RedisDb each step
is one round trip, so a turn costs two.
"""

from __future__ import annotations

import asyncio

import pytest

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.records import KnownVersion
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.exceptions import LeaseLostError
from tests.db.test_redis_store import db as db  # the RedisDb fixture


async def _create(store: BaseDb, **state: object) -> int:
    return await store.asave("s", expected_version=0, changed=texts(state))


async def test_open_run_yields_the_lease_and_the_stored_session(store: BaseDb) -> None:
    """Without ``known`` the stored session comes back with the lease; absent: None."""
    async with store.open_run("missing") as opened:
        assert opened.record is None and not opened.unchanged
    await _create(store, n=1)
    async with store.open_run("s") as opened:
        assert opened.record is not None and opened.record.state == {"n": 1}
        assert not opened.unchanged
        assert opened.lease.session_id == "s"


async def test_open_run_says_unchanged_for_the_known_version(store: BaseDb) -> None:
    """``known`` equal to the stored version and save: unchanged; after a save: changed."""
    await _create(store, n=1)
    async with store.open_run("s") as opened:
        assert opened.record is not None
        known = KnownVersion.of(opened.record)
    async with store.open_run("s", known=known) as opened:
        assert opened.unchanged
    await store.asave("s", expected_version=1, changed=texts({"n": 2}))
    async with store.open_run("s", known=known) as opened:
        assert not opened.unchanged
        assert opened.record is not None and opened.record.state == {"n": 2}


async def test_a_save_under_a_lease_tells_what_the_store_now_holds(store: BaseDb) -> None:
    """lease.saved after a save is the stored identity: the next open_run says unchanged."""
    await _create(store, n=1)
    async with store.open_run("s") as opened:
        await store.asave(
            "s", expected_version=1, changed=texts({"n": 2}), lease=opened.lease, release=True
        )
        saved = opened.lease.saved
    record = await store.aload("s")
    assert record is not None and saved == KnownVersion.of(record)
    async with store.open_run("s", known=saved) as again:
        assert again.unchanged


async def test_a_known_version_from_another_save_is_not_unchanged(store: BaseDb) -> None:
    """Same version number, other save id (content): the state is loaded, not trusted."""
    await _create(store, n=1)
    async with store.open_run("s", known=KnownVersion(1, "another-save")) as opened:
        assert not opened.unchanged and opened.record is not None


async def test_save_with_release_gives_the_lease_back(store: BaseDb) -> None:
    """release=True saves and releases together: the next run gets the lease at once."""
    await _create(store, n=0)
    async with store.open_run("s") as opened:
        assert opened.record is not None
        version = await store.asave(
            "s",
            expected_version=opened.record.version,
            changed=texts({"n": 1}),
            lease=opened.lease,
            release=True,
        )
        assert version == 2 and opened.lease.released
        # still inside the first block: only a released lease lets this one in
        async with store.open_run("s", timeout=5) as second:
            assert second.record is not None and second.record.state == {"n": 1}


async def test_a_failed_save_with_release_keeps_the_lease(store: BaseDb) -> None:
    """A save refused (stale version) releases nothing: the lock's exit does."""
    await _create(store, n=0)
    async with store.open_run("s") as opened:
        with pytest.raises(Exception, match="version"):
            await store.asave(
                "s", expected_version=7, changed=texts({"n": 1}), lease=opened.lease, release=True
            )
        assert not opened.lease.released
    async with store.open_run("s", timeout=5) as again:
        assert again.record is not None and again.record.version == 1


async def test_runs_under_open_run_and_release_lose_no_update(store: BaseDb) -> None:
    """50 concurrent open/save-release runs on one session keep all 50 increments."""
    await _create(store, n=0)

    async def bump() -> None:
        async with store.open_run("s", timeout=60) as opened:
            assert opened.record is not None
            n = opened.record.state["n"]
            await store.asave(
                "s",
                expected_version=opened.record.version,
                changed=texts({"n": n + 1}),
                lease=opened.lease,
                release=True,
            )

    await asyncio.gather(*(bump() for _ in range(50)))
    record = await store.aload("s")
    assert record is not None and record.state == {"n": 50} and record.version == 51


async def test_redis_unchanged_answer_carries_no_state(db: RedisDb) -> None:
    """On Redis an unchanged session is answered without reading its state."""
    await db.asave("s", expected_version=0, changed=texts({"n": 1}))
    record = await db.aload("s")
    assert record is not None and record.epoch
    async with db.open_run("s", known=KnownVersion.of(record)) as opened:
        assert opened.unchanged and opened.record is None


async def test_a_redis_turn_costs_two_round_trips(db: RedisDb) -> None:
    """open_run (lease + load) and the final save with release: 2 round trips."""
    await db.asave("s", expected_version=0, changed=texts({"n": 0, "big": list(range(100))}))
    for known in (None, "cached"):
        record = await db.aload("s")
        assert record is not None
        db.round_trips.reset()
        wanted = KnownVersion.of(record) if known else None
        async with db.open_run("s", known=wanted) as opened:
            assert opened.unchanged == bool(known)
            await db.asave(
                "s",
                expected_version=record.version,
                changed=texts({"n": record.version}),
                lease=opened.lease,
                release=True,
            )
        assert db.round_trips.reset() == 2


async def test_a_stale_token_can_neither_save_nor_release(db: RedisDb) -> None:
    """A lease that expired and was taken over: its save+release writes and frees nothing."""
    short = RedisDb(db_url=db.db_url, key_prefix=db.key_prefix, lock_ttl=0.2)
    try:
        await short.asave("s", expected_version=0, changed=texts({"n": 0}))
        stale = await short.leases.acquire("s", timeout=5)
        await asyncio.sleep(0.4)  # expired, never renewed (acquired outside a hold)
        current = await short.leases.acquire("s", timeout=5)
        with pytest.raises(LeaseLostError):
            await short.asave(
                "s", expected_version=1, changed=texts({"n": 9}), lease=stale, release=True
            )
        assert not stale.released
        keys = SessionKeys(db.key_prefix, "s")
        assert await db._clients.get().get(keys.lease) == current.token  # still held
        record = await short.aload("s")
        assert record is not None and record.state == {"n": 0}
        await short.leases.release(current)
    finally:
        await short.aclose()
