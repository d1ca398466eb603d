"""The storage seam, split by job: what each caller needs, and nothing more.

``BaseDb`` (``core/db/base.py``) is the convenient concrete base that offers all four;
code that needs one job types its parameter with that job's protocol, so a test or a
new backend can provide just that part:

* :class:`SessionStore` — sessions: load, save a delta, delete, list, history, and a
  run's ``open_run`` (lease plus load in one step);
* :class:`RunLocks` — a session's run lock on its own;
* :class:`SnapshotTarget` — what the snapshotter writes into (a durable store);
* :class:`MemoryStore` — facts remembered about a user across sessions;
* :class:`HotStore` — a hot store in front of a durable one (RedisDb): the background
  snapshotter a serving process starts. Runtime-checkable, so a caller asks "is this a
  hot store?" without naming a backend class.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from core.db.base import BaseDb
from core.db.data_parts import DataParts
from core.db.records import (
    HistoryEntry,
    KnownVersion,
    Lease,
    OpenedRun,
    SessionMeta,
    SessionRecord,
    UserMemory,
)
from core.db.snapshot import RetentionPass

__all__ = ["HotStore", "MemoryStore", "RunLocks", "SessionStore", "SnapshotTarget"]


class SessionStore(Protocol):
    """Sessions as JSON text per top-level key, versioned (see ``BaseDb``)."""

    async def aload(self, session_id: str) -> SessionRecord | None:
        """The stored session, or None."""
        ...

    async def asave(
        self,
        session_id: str,
        *,
        expected_version: int,
        changed: Mapping[str, str],
        removed: frozenset[str] | set[str] = ...,
        meta: SessionMeta = ...,
        lease: Lease | None = ...,
        data: str | None = ...,
        data_parts: DataParts | None = ...,
        release: bool = ...,
    ) -> int:
        """Write a delta of key texts atomically; the new version."""
        ...

    async def adelete(self, session_id: str, *, upto_version: int | None = None) -> bool:
        """Delete a session and its history; True when it existed."""
        ...

    async def alist_sessions(
        self, *, owner_id: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        """Sessions, most recently updated first."""
        ...

    async def ahistory(self, session_id: str, *, limit: int = 20) -> list[HistoryEntry]:
        """Saved versions, newest first."""
        ...

    def open_run(
        self,
        session_id: str,
        *,
        timeout: float | None = None,
        known: KnownVersion | None = None,
        user_id: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[OpenedRun]:
        """The session's lease for the block, with the stored session (or "unchanged");
        ErasureInProgressError when ``user_id``'s data is being erased."""
        ...


class RunLocks(Protocol):
    """Runs of one session one at a time, FIFO."""

    def session_lock(
        self, session_id: str, timeout: float | None = None
    ) -> contextlib.AbstractAsyncContextManager[Lease]:
        """Hold the session's run lock for the block."""
        ...


class SnapshotTarget(Protocol):
    """A durable store the snapshotter copies whole records into, and a hot store reads
    sessions back from."""

    async def aclaim(self, session_id: str, epoch: str) -> SessionRecord | None:
        """The stored session, read for hot-store incarnation ``epoch`` (see BaseDb)."""
        ...

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        """Write a record if newer than the stored one; True when written."""
        ...

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[bool | Exception]:
        """A batch of upserts; one outcome per record, in order."""
        ...


class MemoryStore(Protocol):
    """Facts about a user, across all of their sessions."""

    async def aget_memories(self, user_id: str) -> list[UserMemory]:
        """Everything remembered about a user, oldest first."""
        ...

    async def aadd_memory(self, memory: UserMemory) -> UserMemory:
        """Remember a fact."""
        ...

    async def adelete_memory(self, user_id: str, memory_id: str) -> bool:
        """Forget one fact; True when it existed."""
        ...


@runtime_checkable
class HotStore(Protocol):
    """A store snapshotted to a durable one, by a snapshotter some process runs."""

    #: the durable store its sessions are copied to (None: the hot store alone)
    snapshot_to: BaseDb | None
    #: whether the process that built it runs its snapshotter
    run_snapshotter: bool

    def start_snapshotter(self, *, retention: RetentionPass | None = None) -> None:
        """Copy dirty sessions to the durable store in the background from now on."""
        ...

    async def aflush(self) -> int:
        """Copy every dirty session to the durable store now; how many."""
        ...


def _base_offers_every_job(
    db: BaseDb,
) -> tuple[SessionStore, RunLocks, SnapshotTarget, MemoryStore]:
    """Never called: mypy checks here that BaseDb (so every store) fits each protocol."""
    return db, db, db, db
