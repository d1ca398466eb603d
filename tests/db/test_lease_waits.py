"""The queued hook: every lease backend says once, without polling, that a run waits."""

from __future__ import annotations

import asyncio

from core.db import lease_waits
from core.db.base import BaseDb


async def test_a_waiting_run_hears_how_many_are_ahead(store: BaseDb) -> None:
    """Two runs queue behind a holder: the first hears 1 ahead, the second 2; FIFO kept."""
    heard: dict[str, list[int]] = {"a": [], "b": [], "holder": []}
    order: list[str] = []
    release = asyncio.Event()

    async def run(name: str, hold: bool = False) -> None:
        with lease_waits.on_queued(heard[name].append):
            async with store.session_lock("waits:s1", timeout=30):
                order.append(name)
                if hold:
                    await release.wait()

    holder = asyncio.create_task(run("holder", hold=True))
    while not order:
        await asyncio.sleep(0.005)
    first = asyncio.create_task(run("a"))
    while not heard["a"]:
        await asyncio.sleep(0.005)
    second = asyncio.create_task(run("b"))
    while not heard["b"]:
        await asyncio.sleep(0.005)
    release.set()
    await asyncio.gather(holder, first, second)
    assert heard == {"holder": [], "a": [1], "b": [2]}
    assert order == ["holder", "a", "b"]


async def test_no_listener_and_no_wait_hear_nothing(store: BaseDb) -> None:
    """A run that gets the lease at once calls nothing; without a listener nothing is counted."""
    heard: list[int] = []
    with lease_waits.on_queued(heard.append):
        async with store.session_lock("waits:s2", timeout=5):
            pass
    assert heard == []
    assert not lease_waits.listening()


async def test_a_failing_listener_never_fails_the_run(store: BaseDb) -> None:
    """A listener that raises is logged; the queued run still gets its turn."""
    release = asyncio.Event()
    got: list[str] = []

    def broken(_ahead: int) -> None:
        raise RuntimeError("chat is down")

    async def holder() -> None:
        async with store.session_lock("waits:s3", timeout=30):
            got.append("holder")
            await release.wait()

    task = asyncio.create_task(holder())
    while not got:
        await asyncio.sleep(0.005)

    async def waiter() -> None:
        with lease_waits.on_queued(broken):
            async with store.session_lock("waits:s3", timeout=30):
                got.append("waiter")

    second = asyncio.create_task(waiter())
    await asyncio.sleep(0.1)
    release.set()
    await asyncio.gather(task, second)
    assert got == ["holder", "waiter"]
