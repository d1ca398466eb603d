"""The in-process snapshotter, started explicitly: a thread with its own event loop.

A bot process that snapshots (``run_snapshotter=True``) calls
``RedisDb.start_snapshotter()`` once, where it builds the store; nothing starts as a
side effect of a save. The thread has its own loop and its own Redis connections, so
it works whatever loop (or none) the caller runs, never shares a context with an event
being handled (its log lines carry no event ids), and its round trips are not counted
as the store's. It stays silent until Redis first answers, so a process whose Redis
is down at start fails with its startup check's one line. Stopped by
:meth:`SnapshotThread.stop`, which waits for the pass in flight; what is left dirty is
then flushed by ``RedisDb.aclose``.

Given ``retention`` (a bounded pass, ``core.governance.retention.Retention.run_pass`` over the
RedisDb), it enforces retention too, every ``retention_interval`` seconds, as
``statebot snapshotter`` does. The pass runs on this thread's loop: the RedisDb and
the durable stores keep one client per loop, so it never shares a connection with the
process's own loop. The client the RedisDb opened on this loop (``store_clients``) is
closed when the thread ends: left to the garbage collector after the loop closed, its
connections would fail to close (``Event loop is closed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading

from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.redis.client import RedisClients
from core.db.redis.dirty import DirtyQueue
from core.db.snapshot import DEFAULT_RETENTION_INTERVAL, RetentionPass, Snapshotter


class SnapshotThread:
    """Runs a :class:`Snapshotter` over a Redis key prefix until stopped."""

    __slots__ = (
        "_loop",
        "_snapshotter",
        "_started",
        "_stopping",
        "_thread",
        "cipher",
        "interval",
        "prefix",
        "retention",
        "retention_interval",
        "store_clients",
        "target",
        "url",
    )

    def __init__(
        self,
        url: str,
        prefix: str,
        target: BaseDb,
        interval: float,
        *,
        retention: RetentionPass | None = None,
        retention_interval: float = DEFAULT_RETENTION_INTERVAL,
        store_clients: RedisClients | None = None,
        cipher: StateCipher | None = None,
    ) -> None:
        self.url = url
        self.cipher = cipher
        self.prefix = prefix
        self.target = target
        self.interval = interval
        self.retention = retention
        self.retention_interval = retention_interval
        self.store_clients = store_clients
        self._loop: asyncio.AbstractEventLoop | None = None
        self._snapshotter: Snapshotter | None = None
        self._stopping: asyncio.Event | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._main, name="statebot-snapshotter", daemon=True)

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
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._halt)
        self._thread.join()

    def _halt(self) -> None:
        assert self._stopping is not None
        self._stopping.set()
        if self._snapshotter is not None:
            self._snapshotter.stop()

    def _main(self) -> None:
        # like asyncio.run, the runner cancels what is left on the loop before closing
        # it (a lease wait room a retention pass left listening)
        with asyncio.Runner() as runner:
            self._loop = runner.get_loop()
            try:
                runner.run(self._run())
            finally:
                self._started.set()  # never leave start() waiting, even if setup failed

    async def _run(self) -> None:
        clients = RedisClients(self.url)
        self._stopping = asyncio.Event()
        self._started.set()
        try:
            # quiet until Redis first answers: a process whose Redis is down at start
            # reports that once, through its startup check, and exits
            while not await _answers(clients):
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), max(self.interval, 0.1))
                    return
            self._snapshotter = Snapshotter(
                DirtyQueue(clients, self.prefix, self.cipher),
                self.target,
                retention=self.retention,
                retention_interval=self.retention_interval,
            )
            if not self._stopping.is_set():
                await self._snapshotter.run(self.interval)
        finally:
            await clients.aclose()
            if self.store_clients is not None:
                # only this thread's loop: aclose() would close the process loop's client too
                await self.store_clients.aclose_loop()


async def _answers(clients: RedisClients) -> bool:
    try:
        await clients.get().ping()
    except Exception:
        return False
    return True
