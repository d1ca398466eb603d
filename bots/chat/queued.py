"""A visible outcome for every message: "queued" while a run waits for its session.

Runs of one conversation go one at a time, in arrival order (the session's lease).
When two people write in one thread at once, the second run waits; without a word
it would look dropped. The turn pipeline wraps each run in :func:`announcing`:
should the run join its session's queue (``core.db.lease_waits``, no polling), the
adapter's :class:`QueueNotice` is told how many runs are ahead, at once, and the
answer follows when the run is done. Slack shows a reaction on the message; Discord
and the console say "queued behind N".

A wait that hits its bound (``lock_timeout``, or ``max_waiters`` already queued) runs
nothing, and the reply says so (``bots.chat.errors``: ``QUEUE_TIMEOUT``,
``QUEUE_FULL``). The notice is decoration: posting it never fails or delays the run;
it is sent before the answer (the turn waits for it), so the two never cross.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

import structlog

from core.db import lease_waits

__all__ = ["QueueNotice", "announcing", "queued_text"]

log = structlog.get_logger(__name__)


class QueueNotice(Protocol):
    """How a platform tells the sender their message waits its turn."""

    async def queued(self, ahead: int) -> None:
        """The message waits behind ``ahead`` runs of its conversation (the running one too)."""
        ...


def queued_text(ahead: int) -> str:
    """The words Discord and the console use: ``Queued behind 2 requests; …``."""
    runs = "1 request" if ahead == 1 else f"{ahead:,} requests"
    return f"Queued behind {runs} in this conversation; I will answer here when it is done."


@contextlib.asynccontextmanager
async def announcing(notice: QueueNotice | None) -> AsyncIterator[None]:
    """Tell ``notice`` if a run started in the block waits for its session's lease."""
    if notice is None:
        yield
        return
    posted: list[asyncio.Task[None]] = []

    def heard(ahead: int) -> None:  # called inside the lease wait: never block it
        log.info("run_queued", ahead=ahead)
        posted.append(asyncio.create_task(_say(notice, ahead)))

    try:
        with lease_waits.on_queued(heard):
            yield
    finally:
        for task in posted:  # the notice goes out before the answer
            await task


async def _say(notice: QueueNotice, ahead: int) -> None:
    try:
        await notice.queued(ahead)
    except Exception as exc:  # a notice is decoration: the answer still comes
        log.warning("queued_notice_failed", ahead=ahead, error=repr(exc))
