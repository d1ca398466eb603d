"""Graceful shutdown: stop taking new work, let work in flight finish within a grace period.

    drain = Drain()
    with drain.track():            # around each event's handling
        ...
    if drain.closing: ...          # new events are turned away once shutdown began
    finished = await drain.shutdown(grace=30.0)   # False: something was cancelled

Work still running when the grace period ends is cancelled; its handler sees
``CancelledError`` and may tell its user before re-raising. Shared by the Discord
bot and the console (Slack has its own server lifecycle).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import structlog

log = structlog.get_logger("bots.drain")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

# after cancelling, how long handlers get to tell their users before we stop waiting
CANCEL_NOTICE_SECONDS = 5.0


class Drain:
    """Tasks handling events right now, and whether shutdown has begun."""

    __slots__ = ("_idle", "_tasks", "closing")

    def __init__(self) -> None:
        self.closing = False
        self._tasks: set[asyncio.Task[object]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def in_flight(self) -> int:
        """How many events are being handled."""
        return len(self._tasks)

    @contextmanager
    def track(self) -> Iterator[None]:
        """Count the current task as work in flight until the block ends."""
        task = asyncio.current_task()
        assert task is not None, "Drain.track() needs a running task"
        self._tasks.add(task)
        self._idle.clear()
        try:
            yield
        finally:
            self._tasks.discard(task)
            if not self._tasks:
                self._idle.set()

    async def shutdown(self, grace: float) -> bool:
        """Turn new work away, wait up to ``grace`` seconds; True when nothing was cut short."""
        self.closing = True
        if not self._tasks:
            return True
        log.info("shutdown_draining", in_flight=len(self._tasks), grace=grace)
        try:
            await asyncio.wait_for(self._idle.wait(), timeout=grace)
            return True
        except TimeoutError:
            pass
        log.warning("shutdown_grace_exceeded", cancelled=len(self._tasks), grace=grace)
        pending = list(self._tasks)
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=CANCEL_NOTICE_SECONDS)
        return False


@contextmanager
def on_stop_signal(stop: Callable[[str], object]) -> Iterator[None]:
    """Call ``stop(signal name)`` on the first SIGTERM or SIGINT; later ones are logged.

    Handlers are installed on the running loop for the block and removed after it,
    so a second Ctrl-C does not kill the process with a traceback mid-drain.
    """
    loop = asyncio.get_running_loop()
    fired = False

    def handle(name: str) -> None:
        nonlocal fired
        if fired:
            log.info("shutdown_signal_repeated", signal=name)
            return
        fired = True
        log.info("shutdown_signal", signal=name)
        stop(name)

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, handle, sig.name)
    try:
        yield
    finally:
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
