"""A call to the durable store that may not hold a run past its time.

A database behind a network that drops packets answers nothing and raises nothing: a
query waits on its socket for as long as the kernel keeps the connection, far past
any run deadline. Cancelling it is no cure, since the cancelled query's clean-up
(a rollback) waits on the same socket. :func:`bounded` stops waiting instead: the call
goes on in the background until it ends on its own, and the caller gets TimeoutError.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from core.utils.log import log_warning

T = TypeVar("T")

#: calls given up on, kept referenced until they end on their own
_ABANDONED: set[asyncio.Future[Any]] = set()


async def bounded(call: Awaitable[T], seconds: float) -> T:
    """``await call``, or TimeoutError after ``seconds`` without waiting for it to stop."""
    task = asyncio.ensure_future(call)
    done, _ = await asyncio.wait({task}, timeout=max(0.0, seconds))
    if task in done:
        return task.result()
    task.cancel()
    _ABANDONED.add(task)
    task.add_done_callback(_forget)
    raise TimeoutError


def _forget(task: asyncio.Future[Any]) -> None:
    _ABANDONED.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log_warning("an abandoned durable store call failed", error=str(task.exception()))
