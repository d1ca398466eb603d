"""Batched snapshot upserts into the SQL stores: a few statements per batch, not per session.

Each record gets the semantics of ``SqlDb.aupsert_snapshot``: written only when newer
than the stored version (or none is stored), with its history row (and the history
trimmed to ``history_limit``) in the same transaction; the same version from another
save is a VersionConflictError. Outcomes are per record, in the record's slot: True
written, False already there (a no-op), or the exception that refused that record
alone (an id no store can hold, a version conflict, a snapshot read from a Redis
incarnation that no longer holds the session: ``epochs.py``); the others are still
written.

The batch as a whole is one transaction: when the database fails, the call raises and
nothing of the batch was applied (StoreUnavailableError through the store's wrapper),
or, when it fails while committing, OutcomeUnknownError: applied or not, and retrying
is safe because a version already written is a no-op.

PostgreSQL: the rows are copied (``COPY``) into a temporary staging table and merged by
one ``INSERT … ON CONFLICT DO UPDATE … WHERE version < excluded.version RETURNING``
whose data-modifying CTEs also write and trim the history. Measured faster than
psycopg's pipelined ``executemany`` (bench/README.md, "Redis throughput"). SQLite: the
stored versions are read under the write lock (``BEGIN IMMEDIATE``), then
``executemany`` writes the newer records and their history.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite

from core.db.cipher import StateCipher
from core.db.codec import object_text
from core.db.limits import StateLimits
from core.db.records import SessionRecord
from core.db.sql.engine import UNAVAILABLE_ERRORS
from core.db.sql.epochs import refusal
from core.db.sql.tables import Tables
from core.exceptions import (
    InvalidIdError,
    OutcomeUnknownError,
    StateDecryptError,
    VersionConflictError,
)

#: one outcome per record: written, already there, or why that record was refused
Outcome = bool | Exception

_COLUMNS = (
    "session_id",
    "kind",
    "owner_id",
    "user_id",
    "state",
    "version",
    "created_at",
    "updated_at",
    "save_id",
    "data",
    "data_tail",  # a snapshot writes the data whole: nothing appended after it
    "epoch",
)
#: what an update of a stored row sets: everything but the id and the claim (epochs.py)
_UPDATED = _COLUMNS[1:-1]
_IDS_PER_QUERY = 500  # well below SQLite's bound-parameter limit

# one staging table per database session, emptied by every commit
_STAGING = "pg_temp.statebot_snapshot_staging"
_STAGING_DDL = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_STAGING} (session_id text, kind text, "
    "owner_id text, user_id text, state text, version bigint, created_at float8, "
    "updated_at float8, save_id text, data text, data_tail text, epoch text) "
    "ON COMMIT DELETE ROWS"
)


def state_text(record: SessionRecord) -> str:
    """The ``state`` column: the record's key texts spliced into one object, not re-encoded."""
    return object_text(record.texts)


def upsert_snapshots(
    writer: sa.Engine,
    tables: Tables,
    records: Sequence[SessionRecord],
    *,
    history_limit: int,
    limits: StateLimits,
    where: str,
    cipher: StateCipher | None = None,
) -> list[Outcome]:
    """Write ``records`` in one transaction; one outcome per record, in order (blocking).

    ``writer``: the store's writing engine; ``where``: the database as named in errors.
    With ``cipher``, what a record holds unsealed or under an older key is sealed under
    the newest key first (``StateCipher.current_record``): from Redis texts arrive
    sealed and are copied as they are, but a pass that read Redis before a rekey
    rewrote it must not commit the old key's ciphertext.
    """
    outcomes: list[Outcome] = [False] * len(records)
    rows: list[tuple[int, SessionRecord, str]] = []
    for i, record in enumerate(records):
        try:
            limits.check_ids(record.session_id, record.user_id, record.owner_id, record.kind)
            if cipher is not None:
                record = cipher.current_record(record)
            rows.append((i, record, state_text(record)))
        except (InvalidIdError, StateDecryptError) as exc:  # this record only
            outcomes[i] = exc
    if not rows:
        return outcomes
    write = _postgres if writer.dialect.name == "postgresql" else _sqlite_batch
    with writer.connect() as conn:
        transaction = conn.begin()
        try:
            write(conn, tables, rows, outcomes, history_limit)
        except BaseException:
            transaction.rollback()  # failed before the commit: nothing was applied
            raise
        try:
            transaction.commit()
        except UNAVAILABLE_ERRORS as exc:
            raise OutcomeUnknownError(
                f"database {where} failed while committing a snapshot batch of "
                f"{len(rows)} sessions; it may or may not have been applied"
            ) from exc
    return outcomes


def _postgres(
    conn: sa.Connection,
    tables: Tables,
    rows: list[tuple[int, SessionRecord, str]],
    outcomes: list[Outcome],
    history_limit: int,
) -> None:
    for n, batch in enumerate(_rounds(rows)):
        written = _merge(conn, tables, batch, history_limit, first=n == 0)
        for i, record, _ in batch:
            outcomes[i] = record.session_id in written
        skipped = [(i, record) for i, record, _ in batch if record.session_id not in written]
        if skipped:
            _conflicts(conn, tables, skipped, outcomes)


def _merge(
    conn: sa.Connection,
    tables: Tables,
    rows: list[tuple[int, SessionRecord, str]],
    history_limit: int,
    *,
    first: bool,
) -> set[str]:
    """COPY into the staging table and merge; the session ids that were written."""
    dbapi = conn.connection
    trim = history_limit > 0 and any(r.version > history_limit for _, r, _ in rows)
    merge = _merge_sql(conn, tables, history_limit, trim=trim)
    with _as_sqlalchemy_errors(conn, merge):
        cursor = dbapi.cursor()
        try:
            # created by every batch, not remembered per connection: a pooler (pgbouncer
            # in transaction mode) may hand each transaction another server session
            cursor.execute(_STAGING_DDL if first else f"TRUNCATE {_STAGING}")
            with cursor.copy(f"COPY {_STAGING} ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
                for _, r, text in rows:
                    copy.write_row(
                        (
                            r.session_id,
                            r.kind,
                            r.owner_id,
                            r.user_id,
                            text,
                            r.version,
                            r.created_at,
                            r.updated_at,
                            r.save_id,
                            r.data,
                            "",
                            r.epoch,
                        )
                    )
            cursor.execute(merge)
            return {row[0] for row in cursor.fetchall()}
        finally:
            cursor.close()


@contextlib.contextmanager
def _as_sqlalchemy_errors(conn: sa.Connection, statement: str) -> Iterator[None]:
    """Driver errors from the raw cursor (COPY needs it) as SQLAlchemy's, like every
    other statement's: so the store's "database unavailable" translation applies, a
    broken connection is dropped from the pool, and parameters stay out of messages."""
    dbapi_error = conn.dialect.loaded_dbapi.Error
    try:
        yield
    except dbapi_error as exc:
        broken = conn.dialect.is_disconnect(exc, conn.connection.dbapi_connection, None)
        if broken:
            conn.invalidate(exc)
        raise sa.exc.DBAPIError.instance(
            statement,
            None,
            exc,
            dbapi_error,
            hide_parameters=True,
            connection_invalidated=broken,
            dialect=conn.dialect,
        ) from exc


def _merge_sql(conn: sa.Connection, tables: Tables, history_limit: int, *, trim: bool) -> str:
    """One statement: the version-guarded upsert, the history rows of what it wrote and,
    with ``trim``, the removal of history rows past ``history_limit``."""
    name = conn.dialect.identifier_preparer.format_table
    sessions, history = name(tables.sessions), name(tables.history)
    columns = ", ".join(_COLUMNS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in _UPDATED)
    sql = (
        f"WITH merged AS (INSERT INTO {sessions} AS s ({columns}) "
        # in id order: concurrent snapshotters lock rows in one order, so never deadlock
        f"SELECT {columns} FROM {_STAGING} ORDER BY session_id "
        f"ON CONFLICT (session_id) DO UPDATE SET {updates} "
        "WHERE s.version < excluded.version "
        # a row claimed by another Redis incarnation refuses this one's snapshots (the
        # condition is evaluated again on the locked row: a claim that committed
        # meanwhile is seen)
        "AND (s.epoch = '' OR excluded.epoch = '' OR s.epoch = excluded.epoch) "
        "RETURNING s.session_id)"
    )
    limit = int(history_limit)
    if limit > 0:
        sql += (
            f", added AS (INSERT INTO {history} "
            "(session_id, version, state, user_id, saved_at, save_id) "
            "SELECT st.session_id, st.version, st.state, st.user_id, st.updated_at, st.save_id "
            f"FROM {_STAGING} st JOIN merged m ON m.session_id = st.session_id "
            "ORDER BY st.session_id ON CONFLICT (session_id, version) DO UPDATE "
            "SET state = excluded.state, user_id = excluded.user_id, saved_at = excluded.saved_at, "
            "save_id = excluded.save_id)"
        )
    if limit > 0 and trim:
        sql += (
            f", trimmed AS (DELETE FROM {history} h USING {_STAGING} st, merged m "
            "WHERE m.session_id = st.session_id AND h.session_id = st.session_id "
            f"AND st.version > {limit} AND h.version <= st.version - {limit})"
        )
    return sql + " SELECT session_id FROM merged"


def _sqlite_batch(
    conn: sa.Connection,
    tables: Tables,
    rows: list[tuple[int, SessionRecord, str]],
    outcomes: list[Outcome],
    history_limit: int,
) -> None:
    """Under the write lock: read the stored versions, then write the newer records."""
    s, h = tables.sessions, tables.history
    stored = _stored_versions(conn, tables, [r.session_id for _, r, _ in rows])
    sessions: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    trims: list[dict[str, Any]] = []
    for i, record, text in rows:
        version, save_id, claimed = stored.get(record.session_id, (0, "", ""))
        if record.session_id in stored and version >= record.version:
            outcomes[i] = _conflict_or_false(record, version, save_id, claimed)
            continue
        if (refused := refusal(record, claimed)) is not None:
            outcomes[i] = refused
            continue
        stored[record.session_id] = (record.version, record.save_id, claimed or record.epoch)
        outcomes[i] = True
        sessions.append(session_row(record, text))
        entries.append(
            {
                "session_id": record.session_id,
                "version": record.version,
                "state": text,
                "user_id": record.user_id,
                "saved_at": record.updated_at,
                "save_id": record.save_id,
            }
        )
        if record.version > history_limit:
            trims.append({"sid": record.session_id, "upto": record.version - history_limit})
    if not sessions:
        return
    insert = sqlite.insert(s)
    conn.execute(
        insert.on_conflict_do_update(
            index_elements=[s.c.session_id],
            set_={c: insert.excluded[c] for c in _UPDATED},
            where=s.c.version < insert.excluded.version,
        ),
        sessions,
    )
    if history_limit <= 0:
        return
    add = sqlite.insert(h)
    conn.execute(
        add.on_conflict_do_update(
            index_elements=[h.c.session_id, h.c.version],
            set_={c: add.excluded[c] for c in ("state", "user_id", "saved_at", "save_id")},
        ),
        entries,
    )
    if trims:
        conn.execute(
            sa.delete(h).where(
                h.c.session_id == sa.bindparam("sid"), h.c.version <= sa.bindparam("upto")
            ),
            trims,
        )


def session_row(record: SessionRecord, text: str) -> dict[str, Any]:
    """The sessions-table row of ``record`` with its state column ``text``."""
    return {
        "session_id": record.session_id,
        "kind": record.kind,
        "owner_id": record.owner_id,
        "user_id": record.user_id,
        "state": text,
        "version": record.version,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "save_id": record.save_id,
        "data": record.data,
        "data_tail": "",
        "epoch": record.epoch,
    }


def _stored_versions(
    conn: sa.Connection, tables: Tables, session_ids: list[str]
) -> dict[str, tuple[int, str, str]]:
    """(version, save id, claiming incarnation) of the stored sessions among ``session_ids``."""
    s = tables.sessions
    found: dict[str, tuple[int, str, str]] = {}
    unique = list(dict.fromkeys(session_ids))
    for start in range(0, len(unique), _IDS_PER_QUERY):
        chunk = unique[start : start + _IDS_PER_QUERY]
        query = sa.select(s.c.session_id, s.c.version, s.c.save_id, s.c.epoch).where(
            s.c.session_id.in_(chunk)
        )
        for row in conn.execute(query):
            found[row.session_id] = (row.version, row.save_id, row.epoch)
    return found


def _conflicts(
    conn: sa.Connection,
    tables: Tables,
    skipped: list[tuple[int, SessionRecord]],
    outcomes: list[Outcome],
) -> None:
    """For records the guard skipped: a VersionConflictError where the save differs."""
    stored = _stored_versions(conn, tables, [r.session_id for _, r in skipped])
    for i, record in skipped:
        version, save_id, claimed = stored.get(record.session_id, (0, "", ""))
        outcomes[i] = _conflict_or_false(record, version, save_id, claimed)


def _conflict_or_false(record: SessionRecord, version: int, save_id: str, claimed: str) -> Outcome:
    """False (a no-op), the refusal of a snapshot from an incarnation that no longer
    holds the session, or the conflict when the stored equal version is another save."""
    if (refused := refusal(record, claimed)) is not None:
        return refused
    if version == record.version and save_id and record.save_id and save_id != record.save_id:
        return VersionConflictError(record.session_id, record.version, save_id, record.save_id)
    return False


def _rounds(
    rows: list[tuple[int, SessionRecord, str]],
) -> list[list[tuple[int, SessionRecord, str]]]:
    """Split so no session appears twice in one merge (ON CONFLICT touches a row once)."""
    if len({row[1].session_id for row in rows}) == len(rows):
        return [rows]  # the usual case: a batch names each session once
    rounds: list[list[tuple[int, SessionRecord, str]]] = []
    seen: list[set[str]] = []
    for row in rows:
        sid = row[1].session_id
        n = next((k for k, ids in enumerate(seen) if sid not in ids), len(rounds))
        if n == len(rounds):
            rounds.append([])
            seen.append(set())
        rounds[n].append(row)
        seen[n].add(sid)
    return rounds
