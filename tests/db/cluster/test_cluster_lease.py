"""The Redis lease tests (FIFO, waiters, fencing, two processes), run on a real local cluster.

Hand-offs are announced by a classic PUBLISH from inside the lease scripts; a cluster
forwards it to every node, so a waiter subscribed on any node hears it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from core.db.redis import RedisDb
from tests.db.test_redis_lease import *  # noqa: F403  (the lease tests, collected here)
from tests.db.test_redis_lease import ROOT, _hold_lease_script, append_once

pytestmark = pytest.mark.slow


async def test_waiter_process_killed_does_not_block_the_queue(
    db: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """A process that died while queued is skipped; the waiters behind it still get the lease.

    The holder's lease lasts 30 s: the test blocks its loop while the other process
    starts, which may take longer than a short ``lock_ttl`` on a loaded machine.
    """
    holder_store = RedisDb(db_url=redis_url, key_prefix=key_prefix, lock_ttl=30.0)
    try:
        holder = await holder_store.leases.acquire("w", timeout=5)
        proc = subprocess.Popen(
            [sys.executable, "-c", _hold_lease_script(redis_url, key_prefix, "w", wait=True)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "queued"
        proc.kill()
        proc.wait(timeout=10)
        behind = asyncio.create_task(append_once(db, "w", "behind the dead waiter"))
        for _ in range(400):
            if await db.leases.waiting("w") >= 2:
                break
            await asyncio.sleep(0.005)
        await holder_store.leases.release(holder)
        await asyncio.wait_for(behind, timeout=20)
    finally:
        await holder_store.aclose()
    record = await db.aload("w")
    assert record is not None and record.state == {"items": ["behind the dead waiter"]}


async def test_thousand_waiters_on_one_session_do_not_starve_others(
    redis_url: str, key_prefix: str
) -> None:
    """1,000 runs queued on one session hold no pool connection; 20 other sessions all run.

    As the single-server test, but the holder's lease lasts 30 s: queueing 1,000 waiters
    may take longer than a short ``lock_ttl`` on a loaded machine.
    """
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, lock_ttl=30.0, max_connections=50)
    store.leases.max_waiters = 2000
    try:
        holder = await store.leases.acquire("hot", timeout=5)
        queued = [
            asyncio.create_task(store.leases.acquire("hot", timeout=120)) for _ in range(1000)
        ]
        while await store.leases.waiting("hot") < 1000:
            await asyncio.sleep(0.05)
        others = await asyncio.gather(
            *(append_once(store, f"other-{n}", n) for n in range(20)), return_exceptions=True
        )
        assert [o for o in others if o is not None] == []
        for n in range(20):
            record = await store.aload(f"other-{n}")
            assert record is not None and record.state == {"items": [n]}
        for task in queued:
            task.cancel()
        await asyncio.gather(*queued, return_exceptions=True)
        await store.leases.release(holder)
        assert await store.leases.waiting("hot") == 0
    finally:
        await store.aclose()
