"""A session's single writes on a SQL store, each one transaction (run by SqlDb).

* :func:`save`: fencing first (the lease row still holds the caller's token), the
  version check, the changed and removed keys spliced into the stored state as texts,
  the version bump, the history row and its trim, and, with ``release``, the lease
  given back in the same transaction;
* :func:`upsert_snapshot`: one snapshot's version-guarded upsert and its history row;
  an equal version from another save is a VersionConflictError. A commit that fails
  leaves the outcome unknown (OutcomeUnknownError), never reported as not applied.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING

import sqlalchemy as sa

from core.db import codec, data_log
from core.db.records import SessionMeta, SessionRecord
from core.db.sql.data_column import DataWrite
from core.db.sql.engine import UNAVAILABLE_ERRORS
from core.db.sql.epochs import refusal
from core.db.sql.lease import lease_waiters_here
from core.db.sql.snapshots import session_row
from core.exceptions import (
    LeaseLostError,
    OutcomeUnknownError,
    StaleVersionError,
    VersionConflictError,
)

if TYPE_CHECKING:
    from core.db.sql.store import SqlDb

__all__ = ["add_history", "checked_text", "save", "upsert_snapshot"]


def save(
    db: SqlDb,
    session_id: str,
    expected: int,
    changed: dict[str, str],
    removed: set[str],
    meta: SessionMeta,
    token: str,
    data: DataWrite | None,
    release: bool,
) -> tuple[int, str, str | None]:
    s = db._tables.sessions
    head = None
    try:
        with db._writer.begin() as conn:
            # fencing first: a run whose lease expired must not write, whatever version
            if token and not db._lease_sql.holds(conn, session_id, token):
                raise LeaseLostError(session_id, expected)
            row = conn.execute(
                sa.select(
                    s.c.version, s.c.state, s.c.owner_id, sa.func.substr(s.c.data, 1, 1)
                ).where(s.c.session_id == session_id)
            ).first()
            actual = row.version if row is not None else 0
            if actual != expected:
                raise StaleVersionError(session_id, expected, None if row is None else actual)
            # spliced as texts: values are never decoded and encoded again
            texts = codec.split_object(row.state) if row is not None else {}
            for key in removed:
                texts.pop(key, None)
            texts.update(changed)
            text = checked_text(db, session_id, texts)
            now = time.time()
            owner = meta.owner_id
            if owner is None and row is not None:
                owner = row.owner_id  # a save without an owner keeps the stored one
            save_id = uuid.uuid4().hex
            fields: dict[str, object] = {
                "kind": meta.kind,
                "owner_id": owner,
                "user_id": meta.user_id,
                "save_id": save_id,
            }
            if data is not None:
                is_log = row is not None and data_log.is_log(row[3])
                fields |= _data_fields(s, data, appendable=is_log)
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
            add_history(db, conn, session_id, expected + 1, text, meta.user_id, now, save_id)
            if release:
                _, head = db._lease_sql.release(
                    conn, session_id, token, want_head=lease_waiters_here()
                )
    except sa.exc.IntegrityError as exc:  # two creators raced; the other one won
        raise StaleVersionError(session_id, expected, None) from exc
    return expected + 1, save_id, head


def _data_fields(s: sa.Table, data: DataWrite, *, appendable: bool) -> dict[str, object]:
    """The data's columns: the tail appended to where the stored data is a log this
    save's lines follow from (checked in its transaction), else ``data`` whole."""
    if data.tail is not None and appendable:
        return {"data_tail": s.c.data_tail + data.tail}
    return {"data": data.whole(), "data_tail": ""}


def checked_text(db: SqlDb, session_id: str, texts: Mapping[str, str]) -> str:
    text = codec.object_text(texts)
    if len(text) > db.limits.max_state_bytes // 4 and (
        len(text.encode()) > db.limits.max_state_bytes
    ):
        db.limits.check_size(session_id, texts)  # raises, naming keys
    return text


def add_history(
    db: SqlDb,
    conn: sa.Connection,
    session_id: str,
    version: int,
    text: str,
    user_id: str | None,
    now: float,
    save_id: str,
) -> None:
    if db.history_limit <= 0:
        return
    h = db._tables.history
    values = {"state": text, "user_id": user_id, "saved_at": now, "save_id": save_id}
    conn.execute(
        db._upsert(h)
        .values(session_id=session_id, version=version, **values)
        .on_conflict_do_update(index_elements=[h.c.session_id, h.c.version], set_=values)
    )
    if version > db.history_limit:  # nothing to trim before the history is full
        conn.execute(
            sa.delete(h).where(
                h.c.session_id == session_id, h.c.version <= version - db.history_limit
            )
        )


def upsert_snapshot(db: SqlDb, record: SessionRecord) -> bool:
    """``SqlDb.aupsert_snapshot`` (blocking): texts under the newest key, as in a batch."""
    if db.cipher is not None:  # whatever Redis held: see snapshots.upsert_snapshots
        record = db.cipher.current_record(record)
    text = codec.object_text(record.texts)
    s = db._tables.sessions
    row = session_row(record, text)
    # the claim (epochs.py) stays: an update never sets it
    values = {k: v for k, v in row.items() if k not in ("session_id", "epoch")}
    insert = db._upsert(s).values(**row)
    statement = insert.on_conflict_do_update(
        index_elements=[s.c.session_id],
        set_=values,
        where=sa.and_(
            s.c.version < insert.excluded.version,
            sa.or_(
                s.c.epoch == "",
                insert.excluded.epoch == "",
                s.c.epoch == insert.excluded.epoch,
            ),
        ),
    ).returning(s.c.version)
    with db._writer.connect() as conn:
        transaction = conn.begin()
        try:
            written = conn.execute(statement).first() is not None
            if written:
                add_history(
                    db,
                    conn,
                    record.session_id,
                    record.version,
                    text,
                    record.user_id,
                    record.updated_at,
                    record.save_id,
                )
            else:
                _check_same_save(db, conn, record)
        except BaseException:
            transaction.rollback()  # failed before the commit: nothing was applied
            raise
        try:
            transaction.commit()
        except UNAVAILABLE_ERRORS as exc:
            raise OutcomeUnknownError(
                f"database {db._where} failed while committing the snapshot of "
                f"session {record.session_id!r} version {record.version}; it may or "
                "may not have been applied"
            ) from exc
    return written


def _check_same_save(db: SqlDb, conn: sa.Connection, record: SessionRecord) -> None:
    """StaleSnapshotError when another Redis incarnation claimed the session (epochs.py),
    VersionConflictError when the stored equal version came from another save."""
    s = db._tables.sessions
    row = conn.execute(
        sa.select(s.c.version, s.c.save_id, s.c.epoch).where(s.c.session_id == record.session_id)
    ).first()
    if row is not None and (refused := refusal(record, row.epoch)) is not None:
        raise refused
    if (
        row is not None
        and row.version == record.version
        and row.save_id
        and record.save_id
        and row.save_id != record.save_id
    ):
        raise VersionConflictError(record.session_id, record.version, row.save_id, record.save_id)
