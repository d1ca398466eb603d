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
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from core.db import codec
from core.db.base import (
    BaseDb,
    LeaseLostError,
    OutcomeUnknownError,
    StaleVersionError,
    VersionConflictError,
)
from core.db.cipher import MARKER, StateCipher, refuse_sealed
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
from core.db.sql import maintenance
from core.db.sql.engine import UNAVAILABLE_ERRORS, relaxed_writer, unavailable_as_store_error
from core.db.sql.lease import SqlLeases, lease_waiters_here, wake_next
from core.db.sql.lease_sql import LeaseStatements
from core.db.sql.migrate import migrate
from core.db.sql.rekey import rekey_sql
from core.db.sql.snapshots import session_row, upsert_snapshots
from core.db.sql.tables import TableNames, Tables, build_tables

T = TypeVar("T")

_IDS_PER_QUERY = 500  # well below SQLite's bound-parameter limit

#: SQLite may answer "database is locked" at once, without waiting out its busy timeout
#: (e.g. while another connection switches a new file to WAL); the statement failed and
#: its transaction rolled back, so running the whole transaction again is safe
_LOCKED_RETRY = Retrying(
    retry=retry_if_exception(
        lambda exc: isinstance(exc, sa.exc.OperationalError) and "database is locked" in str(exc)
    ),
    stop=stop_after_attempt(5),
    wait=wait_exponential(multiplier=0.02, max=0.5),
    reraise=True,
)


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
            for attempt in _LOCKED_RETRY:
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
        record = _record(row)
        if self.cipher is not None:
            return self.cipher.opened_record(record)
        if MARKER in row.state or row.data.startswith(MARKER):  # one C scan: rarely true
            refuse_sealed(record.session_id, record.texts, record.data)
        return record

    def _read_history(self, row: Any) -> HistoryEntry:
        if self.cipher is None:
            if MARKER in row.state:
                refuse_sealed(row.session_id, codec.split_object(row.state))
            return _history_entry(row)
        texts = self.cipher.open_texts(row.session_id, codec.split_object(row.state))
        state = codec.decode_state(texts)
        return HistoryEntry(row.session_id, row.version, state, row.user_id, row.saved_at)

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
        release: bool = False,
    ) -> int:
        self.limits.check_keys(session_id, changed)
        self.limits.check_ids(session_id, meta.user_id, meta.owner_id, meta.kind)
        self.limits.check_data(session_id, data)
        if self.cipher is not None:  # limits count plaintext; the store holds it sealed
            changed = self.cipher.seal_texts(session_id, changed)
            data = None if data is None else self.cipher.seal_data(session_id, data)
        token = lease.token if lease is not None else ""
        # the lease goes back in the save's transaction; a private database holds an
        # in-process lock instead, given back once the save committed
        in_db = release and lease is not None and bool(token) and not self._private
        version, save_id, head = await self._run(
            self._save,
            session_id,
            expected_version,
            dict(changed),
            set(removed),
            meta,
            token,
            data,
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

    def _save(
        self,
        session_id: str,
        expected: int,
        changed: dict[str, str],
        removed: set[str],
        meta: SessionMeta,
        token: str,
        data: str | None,
        release: bool,
    ) -> tuple[int, str, str | None]:
        s = self._tables.sessions
        head = None
        try:
            with self._writer.begin() as conn:
                # fencing first: a run whose lease expired must not write, whatever version
                if token and not self._lease_sql.holds(conn, session_id, token):
                    raise LeaseLostError(session_id, expected)
                row = conn.execute(
                    sa.select(s.c.version, s.c.state, s.c.owner_id).where(
                        s.c.session_id == session_id
                    )
                ).first()
                actual = row.version if row is not None else 0
                if actual != expected:
                    raise StaleVersionError(session_id, expected, None if row is None else actual)
                # spliced as texts: values are never decoded and encoded again
                texts = codec.split_object(row.state) if row is not None else {}
                for key in removed:
                    texts.pop(key, None)
                texts.update(changed)
                text = self._checked_text(session_id, texts)
                now = time.time()
                owner = meta.owner_id
                if owner is None and row is not None:
                    owner = row.owner_id  # a save without an owner keeps the stored one
                save_id = uuid.uuid4().hex
                fields = {
                    "kind": meta.kind,
                    "owner_id": owner,
                    "user_id": meta.user_id,
                    "save_id": save_id,
                }
                if data is not None:
                    fields["data"] = data
                if row is None:
                    conn.execute(
                        sa.insert(s).values(
                            session_id=session_id,
                            state=text,
                            version=1,
                            created_at=now,
                            updated_at=now,
                            **fields,
                        )
                    )
                else:
                    result = conn.execute(
                        sa.update(s)
                        .where(s.c.session_id == session_id, s.c.version == expected)
                        .values(state=text, version=expected + 1, updated_at=now, **fields)
                    )
                    if result.rowcount != 1:  # another writer committed after our read
                        raise StaleVersionError(session_id, expected, None)
                self._add_history(conn, session_id, expected + 1, text, meta.user_id, now, save_id)
                if release:
                    _, head = self._lease_sql.release(
                        conn, session_id, token, want_head=lease_waiters_here()
                    )
        except sa.exc.IntegrityError as exc:  # two creators raced; the other one won
            raise StaleVersionError(session_id, expected, None) from exc
        return expected + 1, save_id, head

    def _checked_text(self, session_id: str, texts: Mapping[str, str]) -> str:
        text = codec.object_text(texts)
        if len(text) > self.limits.max_state_bytes // 4 and (
            len(text.encode()) > self.limits.max_state_bytes
        ):
            self.limits.check_size(session_id, texts)  # raises, naming keys
        return text

    def _add_history(
        self,
        conn: sa.Connection,
        session_id: str,
        version: int,
        text: str,
        user_id: str | None,
        now: float,
        save_id: str,
    ) -> None:
        if self.history_limit <= 0:
            return
        h = self._tables.history
        values = {"state": text, "user_id": user_id, "saved_at": now, "save_id": save_id}
        conn.execute(
            self._upsert(h)
            .values(session_id=session_id, version=version, **values)
            .on_conflict_do_update(index_elements=[h.c.session_id, h.c.version], set_=values)
        )
        if version > self.history_limit:  # nothing to trim before the history is full
            conn.execute(
                sa.delete(h).where(
                    h.c.session_id == session_id, h.c.version <= version - self.history_limit
                )
            )

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        self.limits.check_ids(record.session_id, record.user_id, record.owner_id, record.kind)
        if self.cipher is not None:
            record = self.cipher.sealed_record(record)
        return await self._run(self._upsert_snapshot, record, codec.object_text(record.texts))

    async def aupsert_snapshots(self, records: Sequence[SessionRecord]) -> list[bool | Exception]:
        """The batch in one transaction (``core/db/sql/snapshots.py``)."""
        if self.cipher is not None:  # from Redis they arrive sealed: copied as they are
            records = [self.cipher.sealed_record(r) for r in records]
        batch = functools.partial(
            upsert_snapshots,
            self._writer,
            self._tables,
            list(records),
            history_limit=self.history_limit,
            limits=self.limits,
            where=self._where,
        )
        return await self._run(batch)

    def _upsert_snapshot(self, record: SessionRecord, text: str) -> bool:
        s = self._tables.sessions
        row = session_row(record, text)
        values = {k: v for k, v in row.items() if k != "session_id"}
        insert = self._upsert(s).values(**row)
        statement = insert.on_conflict_do_update(
            index_elements=[s.c.session_id],
            set_=values,
            where=s.c.version < insert.excluded.version,
        ).returning(s.c.version)
        with self._writer.connect() as conn:
            transaction = conn.begin()
            try:
                written = conn.execute(statement).first() is not None
                if written:
                    self._add_history(
                        conn,
                        record.session_id,
                        record.version,
                        text,
                        record.user_id,
                        record.updated_at,
                        record.save_id,
                    )
                else:
                    self._check_same_save(conn, record)
            except BaseException:
                transaction.rollback()  # failed before the commit: nothing was applied
                raise
            try:
                transaction.commit()
            except UNAVAILABLE_ERRORS as exc:
                raise OutcomeUnknownError(
                    f"database {self._where} failed while committing the snapshot of "
                    f"session {record.session_id!r} version {record.version}; it may or "
                    "may not have been applied"
                ) from exc
        return written

    def _check_same_save(self, conn: sa.Connection, record: SessionRecord) -> None:
        """VersionConflictError when the stored equal version came from another save."""
        s = self._tables.sessions
        row = conn.execute(
            sa.select(s.c.version, s.c.save_id).where(s.c.session_id == record.session_id)
        ).first()
        if (
            row is not None
            and row.version == record.version
            and row.save_id
            and record.save_id
            and row.save_id != record.save_id
        ):
            raise VersionConflictError(
                record.session_id, record.version, row.save_id, record.save_id
            )

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
        return await self._run(self._rows, query, _memory)

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


def _record(row: Any) -> SessionRecord:
    return SessionRecord(
        session_id=row.session_id,
        texts=codec.split_object(row.state),
        version=row.version,
        kind=row.kind,
        owner_id=row.owner_id,
        user_id=row.user_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        save_id=row.save_id,
        data=row.data,
    )


def _history_entry(row: Any) -> HistoryEntry:
    state = codec.decode_value(row.state)
    return HistoryEntry(row.session_id, row.version, state, row.user_id, row.saved_at)


def _memory(row: Any) -> UserMemory:
    return UserMemory(
        memory_id=row.memory_id,
        user_id=row.user_id,
        memory=row.memory,
        topics=tuple(json.loads(row.topics)),
        created_at=row.created_at,
    )
