"""The in-process snapshotter, started explicitly: a thread with its own event loop.

A bot process that snapshots (``run_snapshotter=True``) calls
``RedisDb.start_snapshotter()`` once, where it builds the store; nothing starts as a
side effect of a save. The thread has its own loop and its own Redis connections, so
it works whatever loop (or none) the caller runs, never shares a context with an event
being handled (its log lines carry no event ids), and its round trips are not counted
as the store's. Stopped by :meth:`SnapshotThread.stop`, which waits for the pass in
flight; what is left dirty is then flushed by ``RedisDb.aclose``.
"""

from __future__ import annotations

import asyncio
import threading

from core.db.base import BaseDb
from core.db.redis.client import RedisClients
from core.db.redis.dirty import DirtyQueue
from core.db.snapshot import Snapshotter


class SnapshotThread:
    """Runs a :class:`Snapshotter` over a Redis key prefix until stopped."""

    __slots__ = (
        "_loop",
        "_snapshotter",
        "_started",
        "_thread",
        "interval",
        "prefix",
        "target",
        "url",
    )

    def __init__(self, url: str, prefix: str, target: BaseDb, interval: float) -> None:
        self.url = url
        self.prefix = prefix
        self.target = target
        self.interval = interval
        self._loop: asyncio.AbstractEventLoop | None = None
        self._snapshotter: Snapshotter | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(
            target=self._main, name="statebot-snapshotter", daemon=True
        )

    def start(self) -> None:
        """Start the thread and return once its loop runs."""
        self._thread.start()
        self._started.wait()

    @property
    def running(self) -> bool:
        """Whether the thread is alive."""
        return self._thread.is_alive()

    def stop(self) -> None:
        """Ask the snapshotter to stop after the pass in flight, and wait for the thread."""
        loop, snapshotter = self._loop, self._snapshotter
        if loop is not None and snapshotter is not None and not loop.is_closed():
            loop.call_soon_threadsafe(snapshotter.stop)
        self._thread.join()

    def _main(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._run())
        finally:
            self._started.set()  # never leave start() waiting, even if setup failed
            loop.close()

    async def _run(self) -> None:
        clients = RedisClients(self.url)
        self._snapshotter = Snapshotter(DirtyQueue(clients, self.prefix), self.target)
        self._started.set()
        try:
            await self._snapshotter.run(self.interval)
        finally:
            await clients.aclose()
