"""The storage seam: one interface every backend implements.

A session is one record: its ``session_state`` (a dict of JSON values), a ``version``
that grows by one on every save, and a small meta record (kind and owner id of the
agent/team/workflow, the last user, timestamps). Saves are *deltas*: only the top-level
keys that changed and the ones removed travel to the store, guarded by the version the
caller loaded (optimistic concurrency, also the fencing check for stale lease holders).

Runs of one session are serialized through :meth:`BaseDb.session_lock`. The default is
an in-process FIFO lock; RedisDb replaces it with a lease shared by all processes.
"""

from __future__ import annotations

import abc
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any

from core.db.data_parts import DataParts
from core.db.limits import StateLimits
from core.db.locks import FifoLocks
from core.db.maintenance import RekeyCounts, UserRewrite
from core.db.records import (
    HistoryEntry,
    KnownVersion,
    Lease,
    OpenedRun,
    SessionMeta,
    SessionRecord,
    SnapshotStatus,
    UserMemory,
)
from core.db.session_types import SessionType, session_objects
from core.db.user_blocks import LeaseView, UserBlocks, is_marker, marker_id

# errors live in core.exceptions; these names stay importable from here (older code)
from core.exceptions import ErasureInProgressError
from core.exceptions import InvalidIdError as InvalidIdError
from core.exceptions import LeaseLostError as LeaseLostError
from core.exceptions import LockTimeoutError as LockTimeoutError
from core.exceptions import OutcomeUnknownError as OutcomeUnknownError
from core.exceptions import SessionBusyError as SessionBusyError
from core.exceptions import StaleVersionError as StaleVersionError
from core.exceptions import StateLimitError as StateLimitError
from core.exceptions import StoreError as StoreError
from core.exceptions import StoreUnavailableError as StoreUnavailableError
from core.exceptions import VersionConflictError as VersionConflictError
from core.utils.sync import run_sync

#: every session of a store (the default primitives read them whole)
_ALL = sys.maxsize
#: stored versions read to decide whether a session names a user
_HISTORY_SCAN = 10_000


class BaseDb(abc.ABC):
    """What every store offers. All I/O is async; the Agent's sync API wraps it."""

    #: default seconds to wait for a session's run lock
    lock_timeout: float | None = 60.0
    #: runs that may wait for one session; past it SessionBusyError (None: unbounded)
    max_waiters: int | None = 100
    #: a hot store (RedisDb): its sessions are snapshotted to a durable one, and the
    #: versions it keeps beside them are short-lived undo records, not history
    hot: bool = False

    def __init__(self) -> None:
        self._locks = FifoLocks()
        #: what every store refuses before it sees a value (a backend sets its own)
        self.limits = StateLimits()
        #: what the run leases tell without taking one (a backend with leases of its own sets it)
        self.lease_view: LeaseView = self._locks
        #: erasure markers kept apart from the run leases (None: they are run leases)
        self.user_blocks: UserBlocks | None = None

    # -- Agno's session objects (built by core.session, see core/db/session_types.py) --
    async def aget_session(
        self,
        session_id: str,
        session_type: SessionType = SessionType.AGENT,
        user_id: str | None = None,
        deserialize: bool = True,
    ) -> Any:
        """The session as an AgentSession / TeamSession / WorkflowSession (a dict when
        not ``deserialize``); None when there is none of that type (for that user)."""
        return await session_objects().read(
            self, session_id, SessionType(session_type), user_id, deserialize
        )

    def get_session(
        self,
        session_id: str,
        session_type: SessionType = SessionType.AGENT,
        user_id: str | None = None,
        deserialize: bool = True,
    ) -> Any:
        """Sync twin of :meth:`aget_session`."""
        return run_sync(self.aget_session(session_id, session_type, user_id, deserialize))

    async def aupsert_session(self, session: Any, deserialize: bool = True) -> Any:
        """Save a whole session object (state, name, data, runs) under its lease, with
        an audit entry; returns it as stored."""
        return await session_objects().upsert(self, session, deserialize)

    def upsert_session(self, session: Any, deserialize: bool = True) -> Any:
        """Sync twin of :meth:`aupsert_session`."""
        return run_sync(self.aupsert_session(session, deserialize))

    # -- sessions -------------------------------------------------------------------
    @abc.abstractmethod
    async def aload(self, session_id: str) -> SessionRecord | None:
        """The stored session, or None when it does not exist."""

    @abc.abstractmethod
    async def asave(
        self,
        session_id: str,
        *,
        expected_version: int,
        changed: Mapping[str, str],
        removed: frozenset[str] | set[str] = frozenset(),
        meta: SessionMeta = SessionMeta(),
        lease: Lease | None = None,
        data: str | None = None,
        data_parts: DataParts | None = None,
        release: bool = False,
    ) -> int:
        """Write a delta atomically and return the new version.

        ``changed`` holds the compact JSON text of each changed top-level key, as
        ``core/db/codec.py`` encodes it; the store splices the texts as they are.
        ``release=True`` also gives ``lease`` back in the same atomic write and sets
        ``lease.released``, so the lock's exit releases nothing; a failed save
        releases nothing (the lock's exit does, as usual). ``data`` replaces the
        session's data (a JSON object as text; None keeps it), in the same atomic
        write; ``data_parts``, when given, are that text's parts and how they follow
        from the stored data (``core/db/data_parts.py``): a store that can append
        sends only what is new, any other writes ``data``. ``expected_version`` 0
        creates the session. Raises StaleVersionError when the stored version differs
        (nothing is written), StateLimitError when a limit would be exceeded,
        StoreUnavailableError when the service is down.
        """

    @abc.abstractmethod
    async def adelete(self, session_id: str, *, upto_version: int | None = None) -> bool:
        """Delete a session (and its history); True when it existed.

        ``upto_version``: delete only if the stored version is at most this one (undoing
        a snapshot that landed after a delete must not remove a newer session).
        """

    @abc.abstractmethod
    async def alist_sessions(
        self, *, owner_id: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        """Sessions, most recently updated first."""

    @abc.abstractmethod
    async def ahistory(self, session_id: str, *, limit: int = 20) -> list[HistoryEntry]:
        """Saved versions of a session, newest first."""

    async def aload_many(self, session_ids: Iterable[str]) -> dict[str, SessionRecord]:
        """The stored sessions among ``session_ids`` (missing ones are left out)."""
        found: dict[str, SessionRecord] = {}
        for session_id in dict.fromkeys(session_ids):
            record = await self.aload(session_id)
            if record is not None:
                found[session_id] = record
        return found

    async def aclaim(self, session_id: str, epoch: str) -> SessionRecord | None:
        """:meth:`aload` for a hot store's incarnation ``epoch`` that reads the session
        back: from then on snapshots read from another incarnation are refused
        (StaleSnapshotError). The SQL stores record the claim in the same transaction
        as the read; a store that keeps no claim just loads.
        """
        return await self.aload(session_id)

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        """Write a whole record if it is newer than the stored one (or none is stored).

        The snapshotter's version-guarded upsert: ``record.version`` must be greater
        than the stored version, else nothing is written. A history row is added for
        the version. True when the record was written. When the stored version equals
        ``record.version`` but came from another save (both save ids known), raises
        VersionConflictError: the version was reused for different content.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot receive snapshots")

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[bool | Exception]:
        """:meth:`aupsert_snapshot` for a batch: one outcome per record, in order (True
        written, False older than stored, or the error that session met).

        Raises StoreUnavailableError when the store itself failed; outcomes of records
        before it are then unknown to the caller, and rewriting them is a no-op. A store
        with a faster batch path overrides this loop.
        """
        outcomes: list[bool | Exception] = []
        for record in records:
            try:
                outcomes.append(await self.aupsert_snapshot(record))
            except StoreUnavailableError:
                raise
            except Exception as exc:
                outcomes.append(exc)
        return outcomes

    def open_run(
        self,
        session_id: str,
        *,
        timeout: float | None = None,
        known: KnownVersion | None = None,
        user_id: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[OpenedRun]:
        """Hold the session's run lock for the block and yield it with the stored session.

        With ``known`` (what a per-process cache holds), a store may answer
        ``unchanged=True`` without the state when the stored session is exactly that
        version. Same errors as :meth:`session_lock` and :meth:`aload`. This default
        takes the lock, then loads; RedisDb does both in one round trip. An id no store
        can hold is an InvalidIdError before any store sees it. A run of ``user_id``
        while their data is being erased is refused with ErasureInProgressError once
        the lock is held (so a run queued before the erasure began is refused too).
        """
        self.limits.check_ids(session_id)
        self.limits.check_id("user id", user_id)
        return self._open_run(session_id, timeout, known, user_id)

    @contextlib.asynccontextmanager
    async def _open_run(
        self,
        session_id: str,
        timeout: float | None,
        known: KnownVersion | None,
        user_id: str | None = None,
    ) -> AsyncIterator[OpenedRun]:
        async with self.session_lock(session_id, timeout) as lease:
            if user_id is not None and await self.auser_blocked(user_id):
                raise ErasureInProgressError(user_id)
            record = await self.aload(session_id)
            unchanged = known is not None and known.matches(record)
            yield OpenedRun(lease, record, unchanged)

    # -- run serialization ---------------------------------------------------------
    def session_lock(
        self, session_id: str, timeout: float | None = None
    ) -> contextlib.AbstractAsyncContextManager[Lease]:
        """Hold a session's run lock: runs of one session go one at a time, FIFO.

        Raises SessionBusyError at once when ``max_waiters`` runs already wait, and
        LockTimeoutError after ``timeout`` seconds (default ``lock_timeout``).
        """
        return self._locks.hold(
            session_id,
            self.lock_timeout if timeout is None else timeout,
            max_waiters=self.max_waiters,
        )

    # -- a user's runs blocked during their erasure (core/db/user_blocks.py) ------------
    def user_block(
        self, user_id: str, timeout: float | None = None
    ) -> contextlib.AbstractAsyncContextManager[Lease]:
        """Hold the marker that refuses ``user_id``'s runs (it expires if we die)."""
        if self.user_blocks is not None:
            return self.user_blocks.hold(marker_id(user_id))  # taken at once, never waits
        return self.session_lock(marker_id(user_id), timeout)

    async def auser_blocked(self, user_id: str) -> bool:
        """Whether an erasure of ``user_id`` is under way (a run checks, under its lease)."""
        view = self.user_blocks or self.lease_view
        return await view.held(marker_id(user_id))

    async def aheld_leases(self) -> dict[str, str]:
        """Every run lease held now (markers left out): lease name -> holder token."""
        held = await self.lease_view.held_all()
        return {name: token for name, token in held.items() if not is_marker(name)}

    # -- user memory ------------------------------------------------------------------
    @abc.abstractmethod
    async def aget_memories(self, user_id: str) -> list[UserMemory]:
        """Everything remembered about a user, oldest first."""

    @abc.abstractmethod
    async def aadd_memory(self, memory: UserMemory) -> UserMemory:
        """Remember a fact about a user."""

    @abc.abstractmethod
    async def adelete_memory(self, user_id: str, memory_id: str) -> bool:
        """Forget one fact; True when it existed."""

    async def asnapshot_status(self) -> SnapshotStatus | None:
        """Snapshot lag of a hot store; None for a store that is itself durable."""
        return None

    # -- maintenance primitives (core/governance: erasure, retention, rekey) ----------
    @property
    def durable(self) -> BaseDb | None:
        """The durable store this hot store snapshots to; None for every other store."""
        return None

    async def aflush(self) -> int:
        """Write what waits for the durable store now (a hot store); how many sessions."""
        return 0

    async def asessions_naming(self, rewrite: UserRewrite) -> set[str]:
        """Ids of the sessions this store holds that may name ``rewrite.user_id`` (a
        superset: the caller checks each). This default reads every session whole."""
        found: set[str] = set()
        for record in await self.alist_sessions(limit=_ALL):
            history = await self.ahistory(record.session_id, limit=_HISTORY_SCAN)
            if rewrite.names(record, history):
                found.add(record.session_id)
        return found

    async def ascrub_versions(self, session_id: str, rewrite: UserRewrite) -> int:
        """Take the user out of the versions this store keeps beside the current state
        (history rows, undo records); how many were rewritten. Default: none kept apart."""
        return 0

    async def aforget_extras(self, session_id: str) -> None:  # noqa: B027 - most keep none
        """Drop what a deleted session leaves beside its record (a hot store's conflict
        copy, quarantine entry)."""

    async def aidle_sessions(
        self, before: float, *, after: tuple[float, str] | None, limit: int
    ) -> list[tuple[float, str]]:
        """(updated_at, session id) of sessions last updated before ``before``, oldest
        first, after the keyset ``after``, at most ``limit``. This default reads every
        session's meta."""
        records = await self.alist_sessions(limit=_ALL)
        found = sorted((r.updated_at, r.session_id) for r in records if r.updated_at < before)
        return [k for k in found if after is None or k > after][:limit]

    async def adelete_old_history(
        self,
        before: float,
        cutoff_of: Callable[[str], float | None],
        *,
        limit: int,
        dry_run: bool = False,
    ) -> int:
        """Delete at most ``limit`` stored versions saved before their session's cutoff
        (``cutoff_of``; None keeps them, ``before`` is the latest cutoff of any); how
        many were (or, with ``dry_run``, would be) deleted. Default: none kept apart."""
        return 0

    async def arekey(self, *, lock: bool = True) -> list[RekeyCounts]:
        """Seal again under the newest key everything this store holds under another,
        one pass per store (hot first); ``lock=False`` when a hot store in front of it
        holds the sessions' leases. ValueError when the store cannot be rekeyed."""
        raise ValueError(f"{type(self).__name__} cannot be rekeyed")

    # -- lifecycle ------------------------------------------------------------------
    async def aping(self) -> None:  # noqa: B027 - in-process stores are always reachable
        """Raise StoreUnavailableError when the backing service cannot be reached."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most stores hold nothing
        """Release connections."""
