"""RedisDb: the hot store. One hash per session, one atomic script per save.

A run takes two round trips: ``open_run`` takes the lease and loads the session in
one script (OPEN; or learns it is unchanged since the version the caller caches), and
its last save gives the lease back in the same script (SAVE_RELEASE). A plain load is
one round trip (LOAD), a save one (SAVE). On a miss the session is read back from
``snapshot_to`` (the durable store) and seeded into Redis, so an empty or flushed Redis
continues from the durable version. The process that builds the store starts the
background snapshotter explicitly (:meth:`RedisDb.start_snapshotter`). See
docs/redis.md for the key schema, scripts and failure modes.

With a ``cipher`` (``core/db/cipher.py``) the hash fields, the data key and so the
undo records hold sealed texts: a save seals what it writes, every read through this
API opens. Internally records stay as stored (the snapshotter copies them sealed); the
durable store must be given the same key ring.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping

from core.db.base import BaseDb
from core.db.cipher import StateCipher, refuse_sealed
from core.db.data_parts import DataParts
from core.db.limits import StateLimits
from core.db.maintenance import RekeyCounts, UserRewrite, no_keys_error
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
from core.db.redis import loading, maintenance, opening, writes
from core.db.redis.background import SnapshotThread
from core.db.redis.client import RedisClients, RoundTripCounter
from core.db.redis.dirty import DirtyQueue
from core.db.redis.eviction import check_eviction_policy
from core.db.redis.keys import SessionKeys, check_prefix
from core.db.redis.lease import LeaseManager
from core.db.redis.memories import RedisMemories
from core.db.redis.rekey import rekey_redis
from core.db.redis.user_blocks import RedisUserBlocks
from core.db.snapshot import DEFAULT_RETENTION_INTERVAL, RetentionPass, Snapshotter
from core.exceptions import StoreError, StoreUnavailableError


class RedisDb(BaseDb):
    """Sessions in Redis, snapshotted to a durable store, serialized by Redis leases."""

    hot = True

    def __init__(
        self,
        db_url: str = "redis://127.0.0.1:6379/0",
        snapshot_to: BaseDb | None = None,
        snapshot_interval: float = 1.0,
        ttl: int | None = None,
        key_prefix: str = "statebot:",
        write_through: bool = False,
        lock_ttl: float = 30.0,
        lock_timeout: float = 60.0,
        limits: StateLimits | None = None,
        *,
        history_limit: int = 20,
        run_snapshotter: bool = True,
        max_connections: int = 1000,
        max_waiters: int | None = 100,
        cipher: StateCipher | None = None,
        durable_timeout: float = 5.0,
    ) -> None:
        super().__init__()
        loading.check_same_keys(cipher, snapshot_to)
        if write_through and snapshot_to is None:
            raise ValueError("write_through=True needs a durable store in snapshot_to")
        if write_through and history_limit < 1:
            # a save the durable store refused is undone from its undo record
            raise ValueError("write_through=True needs history_limit >= 1")
        if not durable_timeout > 0:
            raise ValueError(
                f"durable_timeout must be a positive number of seconds, not {durable_timeout!r}"
            )
        self.db_url = db_url
        self.key_prefix = check_prefix(key_prefix)
        self.snapshot_to = snapshot_to
        self.snapshot_interval = snapshot_interval
        self.ttl = ttl
        self.write_through = write_through
        #: seconds a run's path waits for the durable store: a read-back on a miss
        #: (past it: StoreUnavailableError, nothing written) and a write-through copy
        #: (at most half of what is left of the run's deadline; past it the save
        #: stands in Redis, dirty)
        self.durable_timeout = durable_timeout
        self.lock_timeout = lock_timeout
        self.limits = limits or StateLimits()
        self.history_limit = history_limit
        self.run_snapshotter = run_snapshotter and snapshot_to is not None
        self.cipher = cipher
        self._clients = RedisClients(db_url, max_connections=max_connections)
        self.leases = LeaseManager(
            self._clients, self.key_prefix, lock_ttl=lock_ttl, max_waiters=max_waiters
        )
        self.lease_view = self.leases
        self.user_blocks = RedisUserBlocks(self._clients, self.key_prefix, lock_ttl=lock_ttl)
        self.dirty = DirtyQueue(self._clients, self.key_prefix, self.cipher)
        self._memories = RedisMemories(self._clients, self.key_prefix)
        self._server_checked = False
        self._snapshot_thread: SnapshotThread | None = None

    @property
    def location(self) -> str:
        """host:port (or socket path) of the Redis server, without credentials."""
        return self._clients.location

    @property
    def round_trips(self) -> RoundTripCounter:
        """Packets sent to Redis by this store (one per command or pipeline)."""
        return self._clients.counter

    @property
    def _ttl_ms(self) -> int:
        return int(self.ttl * 1000) if self.ttl else 0

    # -- server -----------------------------------------------------------------------
    async def acheck_server(self) -> str | None:
        """Warn (and return why) when the eviction policy can evict keys the store relies
        on: leases and marks under ``volatile-*``, unsnapshotted state under ``allkeys-*``."""
        with self._clients.unavailable("read the server's eviction policy"):
            return await check_eviction_policy(self._clients.get(), self.location)

    async def aping(self) -> None:
        """Both stores a save may need: Redis, and the durable store behind it.

        The first ping (a process's start-up check) also reads Redis's eviction policy
        and warns when it can evict keys the store relies on."""
        with self._clients.unavailable("ping"):
            await self._clients.get().ping()
        await self._check_server_once()
        if self.snapshot_to is not None:
            await self.snapshot_to.aping()

    async def asnapshot_status(self) -> SnapshotStatus | None:
        if self.snapshot_to is None:
            return None  # Redis alone, a cache by choice: nothing to snapshot
        return SnapshotStatus(
            dirty=await self.dirty.count(), quarantined=tuple(await self.dirty.quarantined())
        )

    # -- sessions ---------------------------------------------------------------------
    async def aload(self, session_id: str) -> SessionRecord | None:
        return self._opened(await self._load_stored(session_id))

    async def _load_stored(self, session_id: str) -> SessionRecord | None:
        """The session as Redis holds it (sealed texts stay sealed)."""
        await self._check_server_once()
        keys = SessionKeys(self.key_prefix, session_id)
        return await loading.resolve(self, keys, await loading.load_hot(self, keys))

    def _opened(self, record: SessionRecord | None) -> SessionRecord | None:
        if record is None:
            return record
        if self.cipher is None:
            refuse_sealed(record.session_id, record.texts, record.data)
            return record
        return self.cipher.opened_record(record)

    async def _check_server_once(self) -> None:
        if not self._server_checked:
            self._server_checked = True  # once per store: the policy rarely changes
            await self.acheck_server()

    def open_run(
        self,
        session_id: str,
        *,
        timeout: float | None = None,
        known: KnownVersion | None = None,
        user_id: str | None = None,
    ) -> contextlib.AbstractAsyncContextManager[OpenedRun]:
        """Take the lease and load the session in one round trip (the OPEN script, which
        also reads the erasure marker of ``user_id``), or learn that it is still exactly
        ``known`` without reading the state."""
        self.limits.check_ids(session_id)
        self.limits.check_id("user id", user_id)  # before Redis or the durable store sees it
        wait = self.lock_timeout if timeout is None else timeout
        return opening.open_run(self, session_id, wait, known, user_id)

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
        return await writes.save(
            self,
            session_id,
            expected_version=expected_version,
            changed=changed,
            removed=removed,
            meta=meta,
            lease=lease,
            data=data,
            data_parts=data_parts,
            release=release,
        )

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        return await writes.upsert_snapshot(self, record)

    async def adelete(self, session_id: str, *, upto_version: int | None = None) -> bool:
        return await writes.delete(self, session_id, upto_version)

    async def alist_sessions(
        self, *, owner_id: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        hot = await self.dirty.list_recent(owner_id=owner_id, limit=limit)
        found = {r.session_id: r for r in hot}
        if self.cipher is not None:
            found = {sid: self.cipher.opened_record(r) for sid, r in found.items()}
        if self.snapshot_to is not None:
            for record in await self.snapshot_to.alist_sessions(owner_id=owner_id, limit=limit):
                mine = found.get(record.session_id)
                if mine is None or mine.version < record.version:
                    found[record.session_id] = record
        records = sorted(found.values(), key=lambda r: r.updated_at, reverse=True)
        return records[:limit]

    async def ahistory(self, session_id: str, *, limit: int = 20) -> list[HistoryEntry]:
        return await loading.history(self, session_id, limit)

    def _text_opener(self, session_id: str) -> Callable[[str, str], str]:
        """Opens one stored key text of the session (as is without a cipher)."""
        cipher = self.cipher
        if cipher is None:
            return lambda key, text: loading.unsealed(session_id, key, text)
        return lambda key, text: cipher.open(text, session_id, key)

    # -- run serialization ------------------------------------------------------------
    def session_lock(
        self, session_id: str, timeout: float | None = None
    ) -> contextlib.AbstractAsyncContextManager[Lease]:
        """A lease in Redis: runs of one session go one at a time, FIFO, across processes."""
        return self.leases.hold(session_id, self.lock_timeout if timeout is None else timeout)

    # -- user memory ------------------------------------------------------------------
    # Memories are rare, durable facts: with a durable store they live there; without
    # one, in a Redis hash per user (never expired).
    async def aget_memories(self, user_id: str) -> list[UserMemory]:
        if self.snapshot_to is not None:
            return await self.snapshot_to.aget_memories(user_id)
        return await self._memories.get(user_id)

    async def aadd_memory(self, memory: UserMemory) -> UserMemory:
        if self.snapshot_to is not None:
            return await self.snapshot_to.aadd_memory(memory)
        return await self._memories.add(memory)

    async def adelete_memory(self, user_id: str, memory_id: str) -> bool:
        if self.snapshot_to is not None:
            return await self.snapshot_to.adelete_memory(user_id, memory_id)
        return await self._memories.delete(user_id, memory_id)

    # -- snapshots and lifecycle ------------------------------------------------------
    def start_snapshotter(
        self,
        *,
        retention: RetentionPass | None = None,
        retention_interval: float = DEFAULT_RETENTION_INTERVAL,
    ) -> None:
        """Copy dirty sessions to the durable store in the background from now on.

        Called once by the process that builds the store (``bots/app.py``); nothing
        starts it implicitly. Runs in a thread with its own event loop (see
        ``background.py``) until :meth:`aclose`. With ``retention`` (a bounded pass,
        e.g. ``Retention(self, policy).run_pass``) it also runs that pass every
        ``retention_interval`` seconds, on the thread's loop. ValueError when there is
        no durable store or ``run_snapshotter`` is False (this process must not snapshot).
        """
        if self.snapshot_to is None:
            raise ValueError("this RedisDb has no durable store (snapshot_to) to snapshot to")
        if not self.run_snapshotter:
            raise ValueError(
                "run_snapshotter=False: another process (statebot snapshotter) snapshots"
            )
        if self._snapshot_thread is not None and self._snapshot_thread.running:
            return
        self._snapshot_thread = SnapshotThread(
            self.db_url,
            self.key_prefix,
            self.snapshot_to,
            self.snapshot_interval,
            retention=retention,
            retention_interval=retention_interval,
            store_clients=self._clients,
            cipher=self.cipher,
        )
        self._snapshot_thread.start()

    @property
    def snapshotting(self) -> bool:
        """Whether the background snapshotter of :meth:`start_snapshotter` runs."""
        return self._snapshot_thread is not None and self._snapshot_thread.running

    async def aflush(self) -> int:
        """Copy every dirty session to the durable store now; returns how many."""
        if self.snapshot_to is None:
            return 0
        try:
            return await Snapshotter(self.dirty, self.snapshot_to).drain()
        except StoreError:
            raise
        except Exception as exc:
            raise StoreUnavailableError(
                f"the durable store failed while flushing ({exc}); the sessions stay "
                "marked dirty in Redis"
            ) from exc

    # -- maintenance primitives (core/db/redis/maintenance.py, core/db/redis/rekey.py) -
    @property
    def durable(self) -> BaseDb | None:
        return self.snapshot_to

    @property
    def clients(self) -> RedisClients:
        """The connections, for keys of other concerns kept in this Redis (schedules,
        usage counters): their keys carry this store's ``key_prefix``."""
        return self._clients

    async def asessions_naming(self, rewrite: UserRewrite) -> set[str]:
        """Every session Redis holds (dirty, quarantined or clean), read in chunks."""
        return await maintenance.sessions_naming(self, rewrite)

    async def ascrub_versions(self, session_id: str, rewrite: UserRewrite) -> int:
        """The undo records, conflict copy and quarantine entry, under the lease."""
        async with self.session_lock(session_id):
            return await maintenance.scrub_extras(self, session_id, rewrite)

    async def aforget_extras(self, session_id: str) -> None:
        await maintenance.forget_extras(self, session_id)

    async def aidle_sessions(
        self, before: float, *, after: tuple[float, str] | None, limit: int
    ) -> list[tuple[float, str]]:
        """By the listing indexes' last-update scores (from ``after``'s time on)."""
        found = await maintenance.idle_sessions(
            self, before, limit=limit, from_score=None if after is None else after[0]
        )
        return [(t, sid) for sid, t in found]

    async def arekey(self, *, lock: bool = True) -> list[RekeyCounts]:
        """This Redis, then its durable store (the version guard suffices there)."""
        if self.cipher is None:
            raise no_keys_error(self)
        await self.aflush()  # the durable store gets what is pending, then both are rewritten
        passes = [await rekey_redis(self)]
        durable = self.snapshot_to
        if durable is not None and getattr(durable, "cipher", None) is not None:
            passes += await durable.arekey(lock=False)
        return passes

    async def aclose(self) -> None:
        """Stop the snapshotter, flush what is dirty, close this loop's connections."""
        thread, self._snapshot_thread = self._snapshot_thread, None
        if thread is not None:
            await asyncio.to_thread(thread.stop)
        try:
            if self.run_snapshotter:
                await self.aflush()
        finally:
            await self._clients.aclose()
