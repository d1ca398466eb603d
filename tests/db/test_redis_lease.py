"""Run leases in Redis: FIFO across tasks and processes, expiry, fencing, bounded waits."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.db.codec import encode_delta as texts
from core.db.redis import LeaseLostError, RedisDb
from core.exceptions import LockTimeoutError, SessionBusyError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def db(redis_url: str, key_prefix: str) -> AsyncIterator[RedisDb]:
    """A RedisDb with a short lease so expiry tests stay fast."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, lock_ttl=0.6)
    yield store
    await store.aclose()


async def append_once(store: RedisDb, session_id: str, item: object) -> None:
    """One run: lock, load, append, save under the lease."""
    async with store.session_lock(session_id, timeout=30) as lease:
        record = await store.aload(session_id)
        items = list(record.state.get("items", [])) if record else []
        items.append(item)
        await store.asave(
            session_id,
            expected_version=record.version if record else 0,
            changed=texts({"items": items}),
            lease=lease,
        )


async def test_hundred_concurrent_appends_from_tasks_lose_nothing(db: RedisDb) -> None:
    """100 tasks appending to one session under the lease end with exactly 100 items."""
    await asyncio.gather(*(append_once(db, "shared", n) for n in range(100)))
    record = await db.aload("shared")
    assert record is not None
    assert sorted(record.state["items"]) == list(range(100))
    assert record.version == 100


async def test_two_processes_appending_lose_nothing(redis_url: str, key_prefix: str) -> None:
    """Two OS processes, 50 appends each (25 tasks at a time), end with exactly 100 items."""
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        # a watchdog: a process its test failed to kill exits by itself
        import os, threading
        _dog = threading.Timer(120, os._exit, (3,)); _dog.daemon = True; _dog.start()
        from core.db.redis import RedisDb
        from tests.db.test_redis_lease import append_once

        async def main(worker):
            store = RedisDb(db_url={redis_url!r}, key_prefix={key_prefix!r})
            await asyncio.gather(*(append_once(store, "p", f"{{worker}}-{{n}}") for n in range(50)))
            await store.aclose()

        asyncio.run(main(sys.argv[1]))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, name], cwd=ROOT) for name in ("a", "b")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    record = await store.aload("p")
    await store.aclose()
    assert record is not None and record.version == 100
    expected = {f"{w}-{n}" for w in "ab" for n in range(50)}
    assert len(record.state["items"]) == 100 and set(record.state["items"]) == expected


async def test_waiters_are_served_in_arrival_order(db: RedisDb) -> None:
    """Runs that queue one after another get the lease in the order they arrived."""
    order: list[int] = []
    holder = await db.leases.acquire("fifo", timeout=5)

    async def run(n: int) -> None:
        async with db.session_lock("fifo", timeout=10):
            order.append(n)

    tasks = []
    for n in range(8):
        tasks.append(asyncio.create_task(run(n)))
        while await db.leases.waiting("fifo") < n + 1:  # n+1 tickets queued
            await asyncio.sleep(0.005)
    await db.leases.release(holder)
    await asyncio.gather(*tasks)
    assert order == list(range(8))


async def test_lock_timeout_is_clear_and_leaves_no_ticket(db: RedisDb) -> None:
    """A wait past the timeout raises LockTimeoutError and removes its ticket."""
    async with db.session_lock("busy", timeout=5):
        with pytest.raises(LockTimeoutError, match=r"'busy' stayed busy for more than 0\.2s"):
            async with db.session_lock("busy", timeout=0.2):
                pass
        assert await db.leases.waiting("busy") == 0
    async with db.session_lock("busy", timeout=1) as lease:
        assert lease.token


async def test_cancelled_waiter_leaves_no_ticket(db: RedisDb) -> None:
    """A waiter cancelled while queued takes its ticket out of the queue."""
    holder = await db.leases.acquire("c", timeout=5)
    waiter = asyncio.create_task(db.leases.acquire("c", timeout=10))
    while await db.leases.waiting("c") < 1:
        await asyncio.sleep(0.005)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert await db.leases.waiting("c") == 0
    await db.leases.release(holder)


async def test_dead_holder_loses_lease_and_its_late_write_is_rejected(db: RedisDb) -> None:
    """A holder that stops renewing loses the lease; the next run proceeds; its write fails."""
    await db.asave("d", expected_version=0, changed=texts({"items": []}))
    dead = await db.leases.acquire("d", timeout=5)  # held without renewal: a "dead" holder
    await append_once(db, "d", "next run")  # waits for the lease to expire, then proceeds
    with pytest.raises(LeaseLostError, match="nothing was written"):
        await db.asave("d", expected_version=2, changed=texts({"items": ["late"]}), lease=dead)
    record = await db.aload("d")
    assert record is not None and record.state == {"items": ["next run"]}


async def test_fencing_rejects_expired_holder_even_with_current_version(db: RedisDb) -> None:
    """A write under a lease now held by another run fails although its version matches."""
    await db.asave("f", expected_version=0, changed=texts({"n": 0}))
    stale = await db.leases.acquire("f", timeout=5)
    async with db.session_lock("f", timeout=5):  # taken over after expiry
        with pytest.raises(LeaseLostError):
            await db.asave("f", expected_version=1, changed=texts({"n": 1}), lease=stale)
    record = await db.aload("f")
    assert record is not None and record.version == 1 and record.state == {"n": 0}


async def test_live_holder_keeps_its_lease_past_the_ttl(db: RedisDb) -> None:
    """A live holder renews in the background, so a long run keeps the lease."""
    await db.asave("l", expected_version=0, changed=texts({"n": 0}))
    async with db.session_lock("l", timeout=5) as lease:
        with pytest.raises(LockTimeoutError):
            async with db.session_lock("l", timeout=db.leases.lock_ttl * 2):
                pass
        await db.asave("l", expected_version=1, changed=texts({"n": 1}), lease=lease)


def _hold_lease_script(redis_url: str, key_prefix: str, session_id: str, wait: bool) -> str:
    """A process that takes (or queues for) a session's lease, says so, then sleeps."""
    return textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        # a watchdog: a process its test failed to kill exits by itself
        import os, threading
        _dog = threading.Timer(120, os._exit, (3,)); _dog.daemon = True; _dog.start()
        from core.db.redis import RedisDb

        async def main():
            store = RedisDb(db_url={redis_url!r}, key_prefix={key_prefix!r}, lock_ttl=0.6)
            if {wait!r}:
                # counted as alive long after its death, so the test can queue behind it
                # however slow the machine; a hand-off to it still expires after lock_ttl
                store.leases.stale = 30.0
                task = asyncio.create_task(store.leases.acquire({session_id!r}, timeout=60))
                while await store.leases.waiting({session_id!r}) < 1:
                    await asyncio.sleep(0.005)
                print("queued", flush=True)
                await task
            else:
                async with store.session_lock({session_id!r}):
                    print("holding", flush=True)
                    await asyncio.sleep(60)

        asyncio.run(main())
        """
    )


async def test_holder_process_killed_lease_expires_and_next_run_proceeds(
    db: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """kill -9 of the process holding the lease: the lease expires and the next run gets it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _hold_lease_script(redis_url, key_prefix, "k", wait=False)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    proc.kill()
    proc.wait(timeout=10)
    await append_once(db, "k", "after the crash")
    record = await db.aload("k")
    assert record is not None and record.state == {"items": ["after the crash"]}


async def test_waiter_process_killed_does_not_block_the_queue(
    db: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """A process that died while queued is skipped; the waiters behind it still get the lease."""
    # held with renewal (lock_ttl is short) for as long as the process takes to start
    async with db.session_lock("w", timeout=5):
        proc = subprocess.Popen(
            [sys.executable, "-c", _hold_lease_script(redis_url, key_prefix, "w", wait=True)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert (await asyncio.to_thread(proc.stdout.readline)).strip() == "queued"
        proc.kill()
        proc.wait(timeout=10)
        behind = asyncio.create_task(append_once(db, "w", "behind the dead waiter"))
        # until the run behind has queued; on a slow machine the dead ticket may already
        # be pruned by then (after ``stale`` seconds), so do not insist on seeing both
        for _ in range(400):
            if await db.leases.waiting("w") >= 2:
                break
            await asyncio.sleep(0.005)
    await asyncio.wait_for(behind, timeout=20)
    record = await db.aload("w")
    assert record is not None and record.state == {"items": ["behind the dead waiter"]}


async def test_lease_is_not_renewed_past_the_run_deadline(db: RedisDb) -> None:
    """A holder whose run deadline passed stops renewing: the lease goes to the next run."""
    await db.asave("dl", expected_version=0, changed=texts({"n": 0}))
    async with db.session_lock("dl", timeout=5) as lease:
        lease.renew_until = time.monotonic() + 0.2
        # a hung run that swallowed its cancellation keeps the block open...
        async with db.session_lock("dl", timeout=db.leases.lock_ttl * 4) as second:
            assert second.token != lease.token  # ...yet the next run got the lease
        with pytest.raises(LeaseLostError):
            await db.asave("dl", expected_version=1, changed=texts({"n": 1}), lease=lease)


async def test_waiters_past_the_bound_are_refused_at_once(db: RedisDb) -> None:
    """With max_waiters queued, a new arrival gets SessionBusyError without waiting."""
    db.leases.max_waiters = 3
    holder = await db.leases.acquire("full", timeout=5)
    waiters = [asyncio.create_task(db.leases.acquire("full", timeout=30)) for _ in range(3)]
    while await db.leases.waiting("full") < 3:
        await asyncio.sleep(0.005)
    with pytest.raises(SessionBusyError, match="3 requests are already waiting"):
        await asyncio.wait_for(db.leases.acquire("full", timeout=30), timeout=5)
    assert await db.leases.waiting("full") == 3
    await db.leases.release(holder)
    for waiter in waiters:  # the queued ones are still served, in order
        await db.leases.release(await waiter)


async def test_thousand_waiters_on_one_session_do_not_starve_others(
    redis_url: str, key_prefix: str
) -> None:
    """1,000 runs queued on one session hold no pool connection; 20 other sessions all run."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, lock_ttl=5.0, max_connections=50)
    store.leases.max_waiters = 2000
    try:
        # held with renewal, and a lease time with slack: queueing 1,000 tickets keeps the
        # loop busy, and on a loaded machine a renewal due every lock_ttl/3 can come late
        # (a lost lease hands "hot" to a waiter, and 1,000 would never be waiting)
        async with store.session_lock("hot", timeout=5):
            queued = [
                asyncio.create_task(store.leases.acquire("hot", timeout=120)) for _ in range(1000)
            ]
            deadline = time.monotonic() + 60
            while await store.leases.waiting("hot") < 1000:
                assert time.monotonic() < deadline, "1,000 tickets were not queued in 60 s"
                await asyncio.sleep(0.05)
            others = await asyncio.gather(
                *(append_once(store, f"other-{n}", n) for n in range(20)),
                return_exceptions=True,
            )
            assert [o for o in others if o is not None] == []
            for n in range(20):
                record = await store.aload(f"other-{n}")
                assert record is not None and record.state == {"items": [n]}
            for task in queued:
                task.cancel()
            await asyncio.gather(*queued, return_exceptions=True)
        assert await store.leases.waiting("hot") == 0
    finally:
        await store.aclose()


async def test_handoff_wakes_the_next_waiter_without_polling(db: RedisDb) -> None:
    """Release hands the lease to the oldest waiter at once, through the wake-up channel."""
    db.leases.poll = 30.0  # a waiter that relied on polling would not be served in time
    holder = await db.leases.acquire("h", timeout=5)
    waiter = asyncio.create_task(db.leases.acquire("h", timeout=60))
    while await db.leases.waiting("h") < 1:
        await asyncio.sleep(0.005)
    await db.leases.release(holder)
    lease = await asyncio.wait_for(waiter, timeout=5)
    await db.leases.release(lease)
