"""A tool batch's save, waiting out its grace period, and waiting for a chain of them.

A run saves each tool batch's changes unless it reaches its next save within
``BATCH_SAVE_GRACE`` seconds (:meth:`SessionHandle.persist_soon
<core.state.session.SessionHandle.persist_soon>`). Batch saves form a chain, newest
first; each waits for the one before it, so saves land one at a time, in order.
"""

from __future__ import annotations

import asyncio
import contextlib

__all__ = ["BATCH_SAVE_GRACE", "BatchSave", "settle_chain"]

#: seconds a tool batch's changes may wait to be saved with the run's next save
BATCH_SAVE_GRACE = 0.05


class BatchSave:
    """A tool batch's save: waiting out the grace period, or ``started``."""

    __slots__ = ("previous", "started", "task")

    def __init__(self) -> None:
        self.started = False
        self.task: asyncio.Future[None]
        self.previous: BatchSave | None = None


async def settle_chain(batch: BatchSave | None) -> None:
    """Drop each batch save not yet started and wait for each one under way, newest first.

    A save's own error is not raised here (the handle keeps the first one). A save under
    way finishes even if the caller is cancelled meanwhile (the cancellation is raised
    once it has), so whether it happened is always known.
    """
    while batch is not None:
        if not batch.started:
            batch.task.cancel()
        try:
            await asyncio.shield(batch.task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                # we were cancelled (not the batch): still let a save under way end
                with contextlib.suppress(BaseException):
                    await _wait_quietly(batch.task)
                raise
        except Exception:
            pass
        batch = batch.previous


async def _wait_quietly(task: asyncio.Future[None]) -> None:
    """Wait until ``task`` is done, whatever it raises."""
    await asyncio.wait([task])
