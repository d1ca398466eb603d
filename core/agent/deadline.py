"""Run deadlines: a run that passes its ``run_timeout`` is stopped and lets its session go.

When the deadline passes, the run's task is cancelled (a hung tool or model call ends
there), the call in flight is undone because its changes are never saved, and the
session's lease is released. Tool batches saved before the deadline stay saved.
Nothing is saved after it: :meth:`SessionHandle.persist` refuses once the deadline
has passed, so neither a run that swallowed its cancellation nor a sync tool still
running in an abandoned thread can write. A store that renews leases in the
background stops at the deadline (``Lease.renew_until``), so even a run that never
yields lets its session go. The caller gets a :class:`RunTimeoutError` saying whether
anything had been saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from core.exceptions import RunTimeoutError
from core.state.session import SessionHandle

#: seconds a run may take by default (``run_timeout=``; None for no deadline)
DEFAULT_RUN_TIMEOUT = 300.0
#: seconds one tool call may take by default (``tool_timeout=``, ``@tool(timeout=)``)
DEFAULT_TOOL_TIMEOUT = 60.0


def check_timeout(name: str, value: float | None) -> float | None:
    """``value`` when it is None or positive, else ValueError naming the setting."""
    if value is not None and not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds or None, not {value!r}")
    return value


@contextlib.asynccontextmanager
async def run_deadline(handle: SessionHandle, timeout: float | None) -> AsyncIterator[None]:
    """Run the block under the deadline; RunTimeoutError when it passes."""
    if timeout is None:
        yield
        return
    handle.deadline = time.monotonic() + timeout
    handle.run_timeout = timeout
    handle.lease.renew_until = handle.deadline
    first_version = handle.version
    try:
        async with asyncio.timeout(timeout) as scope:
            yield
    except (TimeoutError, RunTimeoutError) as exc:
        if isinstance(exc, TimeoutError) and not scope.expired():
            raise  # a TimeoutError of the run's own, not its deadline
        raise RunTimeoutError(timeout, saved=handle.version != first_version) from None
    if scope.expired():  # the run swallowed its cancellation and went on: still too late
        raise RunTimeoutError(timeout, saved=handle.version != first_version)
