"""Drain and stop signals: the shutdown pieces shared by Discord and the console."""

from __future__ import annotations

import asyncio
import os
import signal

from bots.ops.drain import Drain, on_stop_signal


async def test_shutdown_waits_for_tracked_work() -> None:
    """shutdown() turns new work away at once and returns True when work in flight ends."""
    drain = Drain()
    release = asyncio.Event()

    async def work() -> None:
        with drain.track():
            await release.wait()

    task = asyncio.create_task(work())
    await asyncio.sleep(0)
    stopping = asyncio.create_task(drain.shutdown(grace=10))
    await asyncio.sleep(0.01)
    assert drain.closing and drain.in_flight == 1 and not stopping.done()
    release.set()
    assert await stopping is True
    await task


async def test_shutdown_cancels_after_grace() -> None:
    """Work still running after the grace period is cancelled; shutdown returns False."""
    drain = Drain()

    async def work() -> None:
        with drain.track():
            await asyncio.sleep(60)

    task = asyncio.create_task(work())
    await asyncio.sleep(0)
    assert await drain.shutdown(grace=0.05) is False
    assert task.cancelled()


async def test_sigterm_calls_stop_once() -> None:
    """The first SIGTERM calls stop with its name; a second one does not call it again."""
    calls: list[str] = []
    with on_stop_signal(calls.append):
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(0.05)
    assert calls == ["SIGTERM"]
