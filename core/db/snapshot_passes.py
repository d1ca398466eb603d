"""The snapshotter's overlapping passes as asyncio tasks: wait for one, collect the
ended ones (raising the first error), settle the rest after a failure."""

from __future__ import annotations

import asyncio

from core.utils.log import log_warning

__all__ = ["collect", "first_done", "settle"]


async def first_done(running: set[asyncio.Task[int]]) -> int:
    """Wait for one of ``running`` to end; :func:`collect` the ended ones."""
    done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
    return collect(running, done)


def collect(running: set[asyncio.Task[int]], done: set[asyncio.Task[int]]) -> int:
    """Take the ended passes ``done`` out of ``running``: the sum of what they returned.

    Every result is read (so no error goes unretrieved); the first error is raised.
    """
    running.difference_update(done)
    total, error = 0, None
    for task in done:
        if task.exception() is not None:
            error = error or task.exception()
        else:
            total += task.result()
    if error is not None:
        raise error
    return total


async def settle(running: set[asyncio.Task[int]]) -> None:
    """Let passes in flight finish after another one failed; their own errors are logged."""
    for task in list(running):
        try:
            await task
        except Exception as exc:
            log_warning("snapshot pass failed after another one", error=str(exc))
    running.clear()
