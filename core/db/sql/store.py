"""SqlDb: the durable store on SQLAlchemy Core, shared by SqliteDb and PostgresDb.

Every blocking call runs in a worker thread (``asyncio.to_thread``), so a store is
usable from any event loop, and the engine is created eagerly but the schema is
migrated lazily, on first use. A save is one transaction: lease check (fencing),
version check, merge of the changed and removed top-level keys, version bump, history
row, history trim. Runs of one session are serialized across store instances and
processes by a lease in the database (``core/db/sql/lease.py``).

With a ``cipher`` (``core/db/cipher.py``) every state value, the ``data`` column
and the values of every history row are stored sealed: a save seals what it writes, a
snapshot or an import seals what is not sealed yet (a Redis snapshot arrives sealed and
is copied as is), and every read opens them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.data_parts import DataParts
from core.db.limits import StateLimits
from core.db.maintenance import RekeyCounts, UserRewrite, no_keys_error
from core.db.records import (
    HistoryEntry,
    KnownVersion,
    Lease,
    SessionMeta,
    SessionRecord,
    UserMemory,
)
from core.db.sql import epochs, maintenance, rows, writes
from core.db.sql.data_column import data_write
from core.db.sql.engine import LOCKED_RETRY, relaxed_writer, unavailable_as_store_error
from core.db.sql.lease import SqlLeases, wake_next
from core.db.sql.lease_sql import LeaseStatements
from core.db.sql.migrate import migrate
from core.db.sql.rekey import rekey_sql
from core.db.sql.snapshots import upsert_snapshots
from core.db.sql.tables import TableNames, Tables, build_tables

T = TypeVar("T")

_IDS_PER_QUERY = 500  # well below SQLite's bound-parameter limit


class SqlDb(BaseDb):
    """Sessions, history and memories in three SQL tables."""

    def __init__(
        self,
        engine: sa.Engine,
        *,
        names: TableNames,
        writer: sa.Engine | None = None,
        history_limit: int = 50,
        limits: StateLimits | None = None,
        serialize: bool = False,
        lock_ttl: float = 30.0,
        lock_timeout: float | None = 60.0,
        cipher: StateCipher | None = None,
    ) -> None:
        super().__init__()
        self.cipher = cipher
        self.lock_timeout = lock_timeout
        self.history_limit = history_limit
        self.limits = limits or StateLimits()
        self._engine = engine
        self._writer = writer or engine
        self._names = names
        self._tables = build_tables(names)
        self._where = engine.url.render_as_string(hide_password=True)
        self._migrated = False
        self._migrate_lock = threading.Lock()
        # a private in-memory SQLite database has one connection: use it one at a time
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if serialize else contextlib.nullcontext()
        )
        # a private database lives in this store only: the in-process FIFO lock suffices
        self._private = serialize
        self._lease_sql = LeaseStatements(self._tables, engine.dialect.name)
        self.leases = SqlLeases(
            self._lease_sql,
            write=functools.partial(self._transact, relaxed_writer(self._writer)),
            read=functools.partial(self._transact, self._engine),
            lock_ttl=lock_ttl,
        )
        self.lease_view = self._locks if serialize else self.leases

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._where!r}, table={self._names.sessions!r})"

    # -- the seam for tables of other concerns kept in this database ------------------
    # (schedules: core/schedule/sql_store.py, usage counters, the console's search)
    @property
    def names(self) -> TableNames:
        """The table names; tables of other concerns are named after the sessions table."""
        return self._names

    @property
    def tables(self) -> Tables:
        """The sessions, history, memories and lease tables."""
        return self._tables

    @property
    def engine(self) -> sa.Engine:
        """The engine reads go through."""
        return self._engine

    @property
    def writer(self) -> sa.Engine:
        """The engine writes go through (the same as :attr:`engine` but on SQLite)."""
        return self._writer

    @property
    def private(self) -> bool:
        """A private in-memory database: it lives in this store only, and holds no
        tables of other concerns."""
        return self._private

    async def acall(self, fn: Callable[..., T], *args: Any) -> T:
        """Run blocking ``fn(*args)`` off the loop, the schema migrated first; an
        unreachable database raises StoreUnavailableError."""
        return await self._run(fn, *args)

    async def atransact(self, engine: sa.Engine, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """Run ``fn(conn, *args)`` inside one transaction on ``engine``, off the loop."""
        return await self._transact(engine, fn, *args, **kw)

    # -- maintenance primitives (core/db/sql/maintenance.py, core/db/sql/rekey.py) -----
    async def asessions_naming(self, rewrite: UserRewrite) -> set[str]:
        """A search of every table that can hold the user's id (a full scan)."""
        return await maintenance.sessions_naming(self, rewrite)

    async def ascrub_versions(self, session_id: str, rewrite: UserRewrite) -> int:
        return await maintenance.scrub_history(self, session_id, rewrite)

    async def aidle_sessions(
        self, before: float, *, after: tuple[float, str] | None, limit: int
    ) -> list[tuple[float, str]]:
        return await maintenance.idle_sessions(self, before, after=after, limit=limit)

    async def adelete_old_history(
        self,
        before: float,
        cutoff_of: Callable[[str], float | None],
        *,
        limit: int,
        dry_run: bool = False,
    ) -> int:
        return await maintenance.delete_old_history(
            self, before, cutoff_of, limit=limit, dry_run=dry_run
        )

    async def arekey(self, *, lock: bool = True) -> list[RekeyCounts]:
        if self.cipher is None:
            raise no_keys_error(self)
        return [await rekey_sql(self, lock=lock)]

    # -- plumbing ---------------------------------------------------------------------
    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(self._call, fn, *args)

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        with unavailable_as_store_error(self._where), self._serial:
            for attempt in LOCKED_RETRY:
                with attempt:
                    self._ensure_schema()
                    return fn(*args)
        raise AssertionError("unreachable: the retry re-raises its last error")

    async def _transact(self, engine: sa.Engine, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        """Run ``fn(conn, *args)`` inside one transaction on ``engine``, off the loop."""
        return await self._run(self._in_transaction, engine, functools.partial(fn, **kw), *args)

    @staticmethod
    def _in_transaction(engine: sa.Engine, fn: Callable[..., T], *args: Any) -> T:
        with engine.begin() as conn:
            return fn(conn, *args)

    def _ensure_schema(self) -> None:
        if self._migrated:
            return
        with self._migrate_lock:
            if not self._migrated:
                with self._writer.begin() as conn:
                    migrate(conn, self._names)
                self._migrated = True

    def _upsert(self, table: sa.Table) -> Any:
        return (postgresql if self._engine.dialect.name == "postgresql" else sqlite).insert(table)

    # -- sessions ---------------------------------------------------------------------
    async def aload(self, session_id: str) -> SessionRecord | None:
        found = await self._run(self._load_many, [session_id])
        return found.get(session_id)

    async def aload_many(self, session_ids: Iterable[str]) -> dict[str, SessionRecord]:
        return await self._run(self._load_many, list(dict.fromkeys(session_ids)))

    def _load_many(self, session_ids: list[str]) -> dict[str, SessionRecord]:
        s = self._tables.sessions
        found: dict[str, SessionRecord] = {}
        # an id with NUL can never have been stored (check_ids), and PostgreSQL refuses
        # to even compare with one
        session_ids = [sid for sid in session_ids if "\x00" not in sid]
        with self._engine.connect() as conn:
            for start in range(0, len(session_ids), _IDS_PER_QUERY):
                chunk = session_ids[start : start + _IDS_PER_QUERY]
                for row in conn.execute(sa.select(s).where(s.c.session_id.in_(chunk))):
                    found[row.session_id] = self._read_record(row)
        return found

    def _read_record(self, row: Any) -> SessionRecord:
        return rows.read_record(row, self.cipher)

    def _read_history(self, row: Any) -> HistoryEntry:
        return rows.read_history(row, self.cipher)

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
        self.limits.check_keys(session_id, changed)
        self.limits.check_ids(session_id, meta.user_id, meta.owner_id, meta.kind)
        self.limits.check_data(session_id, data)
        # limits count plaintext; the store holds it sealed
        write = None if data is None else data_write(self, session_id, data, data_parts)
        if self.cipher is not None:
            changed = self.cipher.seal_texts(session_id, changed)
        token = lease.token if lease is not None else ""
        # the lease goes back in the save's transaction; a private database holds an
        # in-process lock instead, given back once the save committed
        in_db = release and lease is not None and bool(token) and not self._private
        version, save_id, head = await self._run(
            writes.save,
            self,
            session_id,
            expected_version,
            dict(changed),
            set(removed),
            meta,
            token,
            write,
            in_db,
        )
        if lease is not None:
            lease.saved = KnownVersion(version, save_id)
        if lease is not None and release:
            if in_db:
                lease.released = True
                if head is not None:
                    wake_next(head)
            else:
                self._locks.release(lease)
        return version

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        self.limits.check_ids(record.session_id, record.user_id, record.owner_id, record.kind)
        return await self._run(writes.upsert_snapshot, self, record)

    async def aclaim(self, session_id: str, epoch: str) -> SessionRecord | None:
        return await self._run(epochs.claim, self, session_id, epoch)

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[bool | Exception]:
        """The batch in one transaction (``core/db/sql/snapshots.py``)."""
        batch = functools.partial(
            upsert_snapshots,
            self._writer,
            self._tables,
            list(records),
            history_limit=self.history_limit,
            limits=self.limits,
            where=self._where,
            cipher=self.cipher,
        )
        return await self._run(batch)

    async def adelete(self, session_id: str, *, upto_version: int | None = None) -> bool:
        return await self._run(self._delete, session_id, upto_version)

    def _delete(self, session_id: str, upto_version: int | None) -> bool:
        s, h = self._tables.sessions, self._tables.history
        session_rows = sa.delete(s).where(s.c.session_id == session_id)
        if upto_version is not None:
            session_rows = session_rows.where(s.c.version <= upto_version)
        with self._writer.begin() as conn:
            deleted = conn.execute(session_rows).rowcount > 0
            if not deleted and upto_version is not None:
                exists = sa.select(s.c.version).where(s.c.session_id == session_id)
                if conn.execute(exists).first() is not None:
                    return False  # a newer session lives there now: keep it and its history
            conn.execute(sa.delete(h).where(h.c.session_id == session_id))
            return deleted

    async def alist_sessions(
        self, *, owner_id: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        s = self._tables.sessions
        query = sa.select(s).order_by(s.c.updated_at.desc(), s.c.session_id).limit(limit)
        if owner_id is not None:
            query = query.where(s.c.owner_id == owner_id)
        return await self._run(self._rows, query, self._read_record)

    async def ahistory(self, session_id: str, *, limit: int = 20) -> list[HistoryEntry]:
        h = self._tables.history
        query = (
            sa.select(h)
            .where(h.c.session_id == session_id)
            .order_by(h.c.version.desc())
            .limit(limit)
        )
        return await self._run(self._rows, query, self._read_history)

    def _rows(self, query: sa.Select[Any], convert: Callable[[Any], T]) -> list[T]:
        with self._engine.connect() as conn:
            return [convert(row) for row in conn.execute(query)]

    # -- run serialization ------------------------------------------------------------
    def session_lock(
        self, session_id: str, timeout: float | None = None
    ) -> contextlib.AbstractAsyncContextManager[Lease]:
        """A lease in the database: runs of one session go one at a time, FIFO, across
        store instances and processes (a private in-memory database: in-process FIFO)."""
        if self._private:
            return super().session_lock(session_id, timeout)
        return self.leases.hold(
            session_id,
            self.lock_timeout if timeout is None else timeout,
            max_waiters=self.max_waiters,
        )

    # -- user memory ------------------------------------------------------------------
    async def aget_memories(self, user_id: str) -> list[UserMemory]:
        m = self._tables.memories
        query = sa.select(m).where(m.c.user_id == user_id).order_by(m.c.created_at, m.c.memory_id)
        return await self._run(self._rows, query, rows.read_memory)

    async def aadd_memory(self, memory: UserMemory) -> UserMemory:
        m = self._tables.memories
        values = {
            "memory": memory.memory,
            "topics": json.dumps(list(memory.topics), ensure_ascii=False),
            "created_at": memory.created_at,
        }
        statement = (
            self._upsert(m)
            .values(user_id=memory.user_id, memory_id=memory.memory_id, **values)
            .on_conflict_do_update(index_elements=[m.c.user_id, m.c.memory_id], set_=values)
        )
        await self._run(self._write, statement)
        return memory

    async def adelete_memory(self, user_id: str, memory_id: str) -> bool:
        m = self._tables.memories
        statement = sa.delete(m).where(m.c.user_id == user_id, m.c.memory_id == memory_id)
        return await self._run(self._write, statement) > 0

    def _write(self, statement: sa.Executable) -> int:
        with self._writer.begin() as conn:
            return int(conn.execute(statement).rowcount)

    # -- lifecycle --------------------------------------------------------------------
    async def aping(self) -> None:
        await self._run(self._ping)

    def _ping(self) -> None:
        with self._engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    async def aclose(self) -> None:
        await asyncio.to_thread(self._engine.dispose)

    @contextlib.contextmanager
    def connection(self) -> Iterator[sa.Connection]:
        """A migrated connection for maintenance and tests (blocking)."""
        with unavailable_as_store_error(self._where):
            self._ensure_schema()
            with self._engine.connect() as conn:
                yield conn
