"""Graceful shutdown: stop taking events, let runs in flight finish, then stop.

Bolt runs each lazy listener (and each ack runner) as its own asyncio task; those
tasks are the runs in flight. :class:`Shutdown` refuses new deliveries once it is
closing (HTTP 503, so Slack redelivers them later or to another process), waits
up to the grace period (``STATEBOT_SHUTDOWN_GRACE``) for the in-flight tasks, then
cancels what is left; a cancelled listener still removes its reaction and says it
was interrupted (``bots.adapters.slack.listeners``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from slack_bolt.response import BoltResponse

log = structlog.get_logger(__name__)

# the coroutines bolt wraps lazy listeners and ack functions in (slack_bolt.lazy_listener)
BOLT_TASKS = ("to_runnable_function", "run_ack_function_asynchronously")
# after the grace period, cancelled listeners get this long to clean up
CLEANUP_SECONDS = 5.0

Next = Callable[[], Awaitable[None]]


def bolt_tasks() -> set[asyncio.Task[Any]]:
    """Unfinished tasks running bolt listeners, other than the current one."""
    me = asyncio.current_task()
    return {
        task
        for task in asyncio.all_tasks()
        if task is not me
        and not task.done()
        and getattr(task.get_coro(), "__qualname__", "").endswith(BOLT_TASKS)
    }


class Shutdown:
    """The closing flag and the drain of runs in flight."""

    __slots__ = ("_closing",)

    def __init__(self) -> None:
        self._closing = False

    @property
    def closing(self) -> bool:
        """True once shutdown has begun: no new events are taken."""
        return self._closing

    def middleware(self) -> Callable[..., Awaitable[BoltResponse | None]]:
        """Global bolt middleware answering 503 to every delivery while closing."""

        async def refuse_while_closing(next: Next) -> BoltResponse | None:
            if self._closing:
                return BoltResponse(status=503, body="shutting down")
            await next()
            return None

        return refuse_while_closing

    async def drain(self, grace: float) -> int:
        """Close, wait up to ``grace`` seconds for runs in flight; return how many were cut."""
        self._closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        log.info("slack_draining", in_flight=len(bolt_tasks()), grace=grace)
        # an ack runner may start its lazy listener meanwhile: look again until none is left
        while (pending := bolt_tasks()) and loop.time() < deadline:
            await asyncio.wait(pending, timeout=deadline - loop.time())
        for task in pending:
            task.cancel()
        if pending:
            log.warning("slack_runs_cancelled", count=len(pending))
            await asyncio.wait(pending, timeout=CLEANUP_SECONDS)
        return len(pending)
