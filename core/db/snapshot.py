"""The snapshotter: copies dirty sessions from the hot store to the durable store.

Each pass takes a batch of dirty sessions (each read atomically), writes them to the
durable store with a version-guarded upsert, and only then retires each one from the
dirty set, and only if its version did not move meanwhile (compare-and-remove). So:

* a change made while a snapshot is in flight keeps the session dirty: never lost;
* a crash between the durable commit and the cleanup leaves the session dirty; the
  next pass upserts the same version again, which the guard turns into a no-op (no
  duplicate history row), and then retires it.

It runs as a background task of the process owning the RedisDb (started on first
save) or standalone (``statebot snapshotter``); several may run at once safely.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from core.db.base import BaseDb, SessionRecord
from core.utils.log import log_debug, log_warning


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What the compare-and-remove did with one snapshotted session."""

    record: SessionRecord
    outcome: Literal["clean", "moved", "deleted"]


class DirtySource(Protocol):
    """A hot store's dirty sessions (RedisDb's ``dirty`` attribute implements it)."""

    async def abatch(self, limit: int) -> list[SessionRecord]:
        """Up to ``limit`` dirty sessions."""

    async def amark_clean(self, records: Iterable[SessionRecord]) -> list[CleanResult]:
        """Retire sessions whose version is still the one given."""


#: called after the durable commit and before the cleanup (fault injection in tests)
CommitHook = Callable[[list[SessionRecord]], Awaitable[None]]


class Snapshotter:
    """Drains a DirtySource into a durable store in batches."""

    __slots__ = ("_stopping", "after_commit", "batch_size", "source", "target", "written")

    def __init__(
        self,
        source: DirtySource,
        target: BaseDb,
        *,
        batch_size: int = 200,
        after_commit: CommitHook | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        self.source = source
        self.target = target
        self.batch_size = batch_size
        self.after_commit = after_commit
        #: durable writes made (upserts that were not no-ops), for tests and metrics
        self.written = 0
        self._stopping = asyncio.Event()

    async def drain_once(self) -> int:
        """One batch; returns how many sessions left the dirty set."""
        batch = await self.source.abatch(self.batch_size)
        if not batch:
            return 0
        for record in batch:
            if await self.target.aupsert_snapshot(record):
                self.written += 1
        if self.after_commit is not None:
            await self.after_commit(batch)
        retired = 0
        for result in await self.source.amark_clean(batch):
            if result.outcome == "deleted":
                # deleted while this snapshot was in flight: undo the resurrection
                await self.target.adelete(result.record.session_id)
            if result.outcome != "moved":
                retired += 1
        log_debug("snapshot pass", sessions=len(batch), retired=retired)
        return retired

    async def drain(self, *, max_passes: int = 1000) -> int:
        """Batches until nothing is dirty (or passes stop making progress)."""
        total = 0
        for _ in range(max_passes):
            done = await self.drain_once()
            if done == 0:
                break
            total += done
        return total

    def stop(self) -> None:
        """Ask :meth:`run` to return after the pass in flight (call in its loop)."""
        self._stopping.set()

    async def run(self, interval: float) -> None:
        """Drain until :meth:`stop`, pausing ``interval`` seconds when idle; errors logged.

        Stopped by an event rather than by cancellation: redis-py may turn a
        CancelledError landing inside a command into a connection error, which this
        loop would log and survive.
        """
        while not self._stopping.is_set():
            try:
                done = await self.drain_once()
            except Exception as exc:  # a down store must not kill the loop; retry later
                log_warning("snapshot pass failed", error=str(exc))
                done = 0
            if done < self.batch_size:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), interval)
