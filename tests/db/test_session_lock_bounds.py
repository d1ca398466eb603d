"""The in-process FIFO session lock: bounded waiters, clear refusal past the bound."""

from __future__ import annotations

import asyncio

import pytest

from core.db.in_memory import InMemoryDb
from core.exceptions import LockTimeoutError, SessionBusyError


async def test_waiters_past_the_bound_are_refused_at_once() -> None:
    """With max_waiters queued on one session, the next arrival gets SessionBusyError."""
    db = InMemoryDb()
    db.max_waiters = 2
    order: list[int] = []
    release = asyncio.Event()

    async def run(n: int) -> None:
        async with db.session_lock("s", timeout=30):
            order.append(n)
            if n == 0:
                await release.wait()

    first = asyncio.create_task(run(0))
    await asyncio.sleep(0)
    queued = [asyncio.create_task(run(n)) for n in (1, 2)]
    await asyncio.sleep(0.01)
    with pytest.raises(SessionBusyError, match="2 requests are already waiting") as caught:
        await asyncio.wait_for(run(3), timeout=5)
    assert isinstance(caught.value, LockTimeoutError)  # chat layers that know "busy" still do
    release.set()
    await asyncio.gather(first, *queued)
    assert order == [0, 1, 2]


async def test_other_sessions_are_not_bounded_by_a_busy_one() -> None:
    """The bound counts waiters per session: another session still runs."""
    db = InMemoryDb()
    db.max_waiters = 1
    async with db.session_lock("busy"):
        waiter = asyncio.create_task(db.session_lock("busy").__aenter__())
        await asyncio.sleep(0.01)
        async with db.session_lock("free", timeout=1) as lease:
            assert lease.session_id == "free"
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
