"""The snapshotter: copies dirty sessions from the hot store to the durable store.

Each pass takes a batch of dirty sessions (each read atomically), writes them to the
durable store in one batched, version-guarded upsert (``aupsert_snapshots``: one
transaction, an outcome per session), and only then retires each written one from
the dirty set, and only if its version (and the save that made it) did not move
meanwhile (compare-and-remove). So:

* a change made while a snapshot is in flight keeps the session dirty: never lost;
* a crash between the durable commit and the cleanup leaves the session dirty; the
  next pass upserts the same version again, which the guard turns into a no-op (no
  duplicate history row), and then retires it;
* a batch that fails as a whole (the database died mid-way) applied nothing, or, when
  it died while committing, maybe everything: either way every session of it stays
  dirty and the next pass writes it again, harmlessly.

A copy read from a Redis incarnation that has since lost the session (restarted, and
the new one read it back from the durable store) is refused by the durable store
(StaleSnapshotError, ``core/db/sql/epochs.py``): it is not retired, and the session,
as the new incarnation holds it, is copied by a later pass.

Failures are isolated per session. The batched upsert answers each session on its
own: a session the durable store refuses (an id it cannot hold, a version conflict,
...) gets its error, while the others are written. When the batch call itself fails,
the durable store is pinged: if it is down, the pass stops and nothing is counted
against anyone; if it answers, the batch is written again one session at a time, so
the failure lands on the session that caused it. A refused session is retried with
exponential backoff while the others keep draining, and after ``max_attempts``
refusals it is *quarantined*: taken out of the dirty set, kept in the hot store
without expiry, listed with its reason (``asnapshot_status()``, ``statebot state
health``), and logged as an error naming it. A later save of the session makes it
dirty again, and so retried.

Passes overlap (:meth:`Snapshotter.drain`, which the background loop runs): the next
batch is read while up to ``overlap`` batches are written or retired. Batches in flight
never share a session (a read skips the sessions in flight), and each is retired only
after its own commit, so every rule above holds per batch; a failing pass stops the
drain after the passes in flight finish, and what was not retired stays dirty.

It runs as a background task of the process owning the RedisDb (started explicitly,
``db.start_snapshotter()``) or standalone (``statebot snapshotter``); several may run
at once safely.

Retention is enforced here too: given ``retention`` (a bounded pass, e.g.
``core.governance.retention.Retention.run_pass``), :meth:`Snapshotter.run` runs it every
``retention_interval`` seconds between drains; a failing pass is logged and retried at
the next interval (several snapshotters may run it: deletes go through the lease).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from core.db.base import BaseDb
from core.db.records import SessionRecord
from core.db.snapshot_passes import collect, first_done, settle
from core.exceptions import StaleSnapshotError, StoreUnavailableError
from core.utils.log import log_debug, log_error, log_warning

#: sessions per durable write: 500-2,000 measured alike (bench/README.md), 1,000 kept
DEFAULT_BATCH_SIZE = 1000


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What the compare-and-remove did with one snapshotted session."""

    record: SessionRecord
    outcome: Literal["clean", "moved", "deleted"]


class DirtySource(Protocol):
    """A hot store's dirty sessions (RedisDb's ``dirty`` attribute implements it)."""

    async def abatch(self, limit: int, exclude: Collection[str] = ()) -> list[SessionRecord]:
        """Up to ``limit`` dirty sessions, none of those named in ``exclude``."""

    async def amark_clean(self, records: Iterable[SessionRecord]) -> list[CleanResult]:
        """Retire sessions whose version is still the one given."""

    async def aquarantine(self, record: SessionRecord, reason: str) -> bool:
        """Take a refused session out of the dirty set, with the reason."""


@dataclass(slots=True)
class _Failures:
    """Refusals of one session so far, and when it may be tried again."""

    count: int
    retry_at: float


#: called after the durable commit and before the cleanup, or (``before_commit``) after
#: the read and before the durable write: fault injection and interleavings in tests
CommitHook = Callable[[list[SessionRecord]], Awaitable[None]]
#: one bounded retention pass (``core.governance.retention.Retention.run_pass``)
RetentionPass = Callable[[], Awaitable[object]]
#: seconds between retention passes of a running snapshotter
DEFAULT_RETENTION_INTERVAL = 3600.0


class Snapshotter:
    """Drains a DirtySource into a durable store in batches, isolating refused sessions."""

    __slots__ = (
        "_failures",
        "_retention_due",
        "_stopping",
        "after_commit",
        "backoff",
        "batch_size",
        "before_commit",
        "clock",
        "max_attempts",
        "overlap",
        "quarantined",
        "retention",
        "retention_interval",
        "source",
        "target",
        "written",
    )

    def __init__(
        self,
        source: DirtySource,
        target: BaseDb,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        overlap: int = 3,
        after_commit: CommitHook | None = None,
        before_commit: CommitHook | None = None,
        max_attempts: int = 5,
        backoff: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        retention: RetentionPass | None = None,
        retention_interval: float = DEFAULT_RETENTION_INTERVAL,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        if overlap < 1:
            raise ValueError(f"overlap must be at least 1, not {overlap}")
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {max_attempts}")
        self.source = source
        self.target = target
        #: sessions per pass and per durable transaction; 500-2,000 drain alike
        #: (bench/README.md, "Redis throughput"), bounded so one pass stays small in memory
        self.batch_size = batch_size
        #: batches written or retired at once by :meth:`drain` while the next is read
        self.overlap = overlap
        self.after_commit = after_commit
        self.before_commit = before_commit
        self.max_attempts = max_attempts
        #: seconds before the first retry of a refused session; doubles, capped at 5 min
        self.backoff = backoff
        self.clock = clock
        #: durable writes made (upserts that were not no-ops), for tests and metrics
        self.written = 0
        #: sessions this snapshotter quarantined
        self.quarantined = 0
        self._failures: dict[str, _Failures] = {}
        self._stopping = asyncio.Event()
        #: a retention pass run by :meth:`run` every ``retention_interval`` seconds
        self.retention = retention
        self.retention_interval = retention_interval
        self._retention_due = clock()  # the first pass runs at start

    async def drain_once(self) -> int:
        """One batch; returns how many sessions left the dirty set (or were parked)."""
        batch = await self._read(set())
        if not batch:
            return 0
        return await self._copy(batch)

    async def _copy(self, batch: list[SessionRecord]) -> int:
        """Commit ``batch`` durably, then retire it from the dirty set; one debug line."""
        copied, parked = await self._commit(batch)
        retired = await self._retire(copied)
        log_debug("snapshot pass", sessions=len(batch), retired=retired, parked=parked)
        return parked + retired

    def _backing_off(self) -> set[str]:
        """Sessions refused lately whose next try is not due yet."""
        now = self.clock()
        return {sid for sid, f in self._failures.items() if f.retry_at > now}

    async def _read(self, in_flight: set[str]) -> list[SessionRecord]:
        """The next batch: dirty sessions neither in flight nor backing off."""
        # taken now, not when the read runs: the caller goes on changing in_flight
        exclude = self._backing_off() | in_flight
        return await self.source.abatch(self.batch_size, exclude)

    async def _commit(self, batch: list[SessionRecord]) -> tuple[list[SessionRecord], int]:
        """Write ``batch`` durably: the sessions to retire, and how many were parked."""
        copied: list[SessionRecord] = []
        parked = 0
        if self.before_commit is not None:
            await self.before_commit(batch)
        for record, outcome in zip(batch, await self._write(batch), strict=True):
            if isinstance(outcome, StaleSnapshotError):
                self._stale(record, outcome)
                continue
            if isinstance(outcome, Exception):
                parked += await self._refused(record, outcome)
                continue
            if outcome:
                self.written += 1
            self._failures.pop(record.session_id, None)
            copied.append(record)
        if self.after_commit is not None:
            await self.after_commit(copied)
        return copied, parked

    async def _retire(self, copied: list[SessionRecord]) -> int:
        """Compare-and-remove the committed sessions; how many left the dirty set."""
        retired = 0
        for result in await self.source.amark_clean(copied):
            if result.outcome == "deleted":
                # deleted while this snapshot was in flight: undo the resurrection
                await self.target.adelete(
                    result.record.session_id, upto_version=result.record.version
                )
            if result.outcome != "moved":
                retired += 1
        return retired

    async def _write(self, batch: list[SessionRecord]) -> list[bool | Exception]:
        """One batched upsert; one session at a time only to place a failure of the batch."""
        try:
            return await self.target.aupsert_snapshots(batch)
        except Exception as exc:
            await self._raise_if_down(exc)
            log_warning("snapshot batch failed; writing it one session at a time", error=str(exc))
        outcomes: list[bool | Exception] = []
        for record in batch:
            try:
                outcomes.append(await self.target.aupsert_snapshot(record))
            except Exception as exc:
                await self._raise_if_down(exc)
                outcomes.append(exc)
        return outcomes

    async def _raise_if_down(self, exc: Exception) -> None:
        """Re-raise when the durable store itself is down: not the session's fault."""
        try:
            await self.target.aping()
        except StoreUnavailableError as down:
            raise down from exc

    def _stale(self, record: SessionRecord, exc: StaleSnapshotError) -> None:
        """A copy read before Redis restarted: not retired (what Redis holds now is still
        to be copied), tried again after ``backoff``, never quarantined for it."""
        failures = self._failures.setdefault(record.session_id, _Failures(0, 0.0))
        failures.retry_at = self.clock() + self.backoff
        log_warning("snapshot refused: read before a Redis restart", reason=str(exc))

    async def _refused(self, record: SessionRecord, exc: Exception) -> int:
        """Count a refusal; quarantine at ``max_attempts``. 1 when it left the dirty set."""
        reason = f"{type(exc).__name__}: {exc}"
        failures = self._failures.setdefault(record.session_id, _Failures(0, 0.0))
        failures.count += 1
        if failures.count < self.max_attempts:
            delay = min(self.backoff * 2 ** (failures.count - 1), 300.0)
            failures.retry_at = self.clock() + delay
            log_warning(
                "snapshot refused; retrying later",
                session_id=record.session_id,
                attempt=failures.count,
                retry_in_s=delay,
                reason=reason,
            )
            return 0
        del self._failures[record.session_id]
        if not await self.source.aquarantine(record, reason):
            return 0  # saved again meanwhile: the new version gets its own tries
        self.quarantined += 1
        log_error(
            "snapshot quarantined: the durable store keeps refusing this session; it "
            "stays in the hot store and is retried after its next change",
            session_id=record.session_id,
            version=record.version,
            attempts=failures.count,
            reason=reason,
        )
        return 1

    async def drain(self, *, max_passes: int = 1000) -> int:
        """Batches until nothing is dirty (or ``max_passes`` batches); how many left.

        The passes overlap: while up to ``overlap`` batches are being written to the
        durable store or retired from the hot store, the next one is read. Batches in
        flight never share a session (a read skips the sessions in flight), so each
        is a :meth:`drain_once` of its own, retired only after its durable commit. A
        failing pass stops the drain: no new batch is read, the passes in flight
        finish (never cancelled: a cancelled retire could skip undoing a
        resurrection), and the first error is raised; what was not retired stays dirty.
        """
        in_flight: set[str] = set()
        running: set[asyncio.Task[int]] = set()
        total, passes = 0, 0
        try:
            while passes < max_passes and not self._stopping.is_set():
                batch = await self._read(in_flight)
                if not batch:
                    if not running:
                        break
                    # what a pass leaves dirty (saved again meanwhile) is due again
                    total += await first_done(running)
                    continue
                # a pass that failed during the read stops the drain before another starts
                total += collect(running, {t for t in running if t.done()})
                passes += 1
                in_flight.update(r.session_id for r in batch)
                running.add(asyncio.ensure_future(self._pass(batch, in_flight)))
                while len(running) >= self.overlap:
                    total += await first_done(running)
            while running:
                total += await first_done(running)
        except BaseException:
            await settle(running)
            raise
        return total

    async def _pass(self, batch: list[SessionRecord], in_flight: set[str]) -> int:
        """:meth:`drain_once` of a batch already read; its sessions leave ``in_flight``."""
        try:
            return await self._copy(batch)
        finally:
            in_flight.difference_update(r.session_id for r in batch)

    def stop(self) -> None:
        """Ask :meth:`run` (and :meth:`drain`) to return once the batches in flight are
        done (call in its loop)."""
        self._stopping.set()

    async def run(self, interval: float) -> None:
        """Drain until :meth:`stop`, pausing ``interval`` seconds when idle; errors logged.

        Stopped by an event rather than by cancellation: redis-py may turn a
        CancelledError landing inside a command into a connection error, which this
        loop would log and survive.
        """
        while not self._stopping.is_set():
            try:
                await self.drain()
            except Exception as exc:  # a down store must not kill the loop; retry later
                log_warning("snapshot pass failed", error=str(exc))
            await self.retain_if_due()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), interval)

    async def retain_if_due(self) -> bool:
        """Run the retention pass when its interval has passed; True when it ran.

        A failing pass is logged, never raised: snapshots matter more, and the next
        interval tries again.
        """
        if self.retention is None or self.clock() < self._retention_due:
            return False
        self._retention_due = self.clock() + self.retention_interval
        try:
            outcome = await self.retention()
        except Exception as exc:
            log_warning("retention pass failed", error=str(exc))
            return True
        log_debug("retention pass", outcome=getattr(outcome, "to_dict", lambda: outcome)())
        return True
