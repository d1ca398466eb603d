"""Maintenance primitives of a SQL store (SqliteDb, PostgresDb): erasure and retention.

What ``SqlDb.asessions_naming``, ``ascrub_versions``, ``aidle_sessions`` and
``adelete_old_history`` run (``core/governance/erasure.py`` and ``retention.py``
decide when). They use the store's table objects and runner (``_tables``, ``_names``,
``_run``, ``_writer``): the queries need the columns, and the runner migrates the
schema and turns an unreachable database into StoreError.

* Finding a user is a search of every table that can hold their id: the sessions'
  last user, state and data, the history's user and states, the schedules' user. The
  text searches are full scans; erasure is rare and must not miss a session.
* History rows are rewritten in place (a version's content changes): that is the
  purpose of erasure, and the only exception to "a version names one content".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from core.db import codec
from core.db.maintenance import UserRewrite
from core.db.sql.schedule_tables import build_schedules_table

if TYPE_CHECKING:
    from core.db.sql.store import SqlDb

__all__ = [
    "delete_old_history",
    "idle_sessions",
    "scrub_history",
    "sessions_naming",
]


def _contains(column: Any, needles: tuple[str, ...]) -> Any:
    return sa.or_(*(column.contains(n, autoescape=True) for n in needles))


def _schedules(db: SqlDb) -> sa.Table | None:
    """The schedules table (None for a private in-memory database, which keeps none)."""
    return None if db._private else build_schedules_table(db._names)


async def sessions_naming(db: SqlDb, rewrite: UserRewrite) -> set[str]:
    """Ids of every session whose row, history or schedules may name the user."""
    user_id, needles = rewrite.user_id, rewrite.needles
    s, h = db._tables.sessions, db._tables.history
    queries: list[Any] = [
        sa.select(s.c.session_id).where(
            sa.or_(
                s.c.user_id == user_id,
                _contains(s.c.state, needles),
                _contains(s.c.data, needles),
                _contains(s.c.data_tail, needles),
            )
        ),
        sa.select(h.c.session_id).where(
            sa.or_(h.c.user_id == user_id, _contains(h.c.state, needles))
        ),
    ]
    schedules = _schedules(db)
    if schedules is not None:
        queries.append(sa.select(schedules.c.session_id).where(schedules.c.user_id == user_id))

    def fetch() -> set[str]:
        with db._engine.connect() as conn:
            return {row[0] for row in conn.execute(sa.union(*queries))}

    found: set[str] = await db._run(fetch)
    return found


async def scrub_history(db: SqlDb, session_id: str, rewrite: UserRewrite) -> int:
    """Pseudonymise the user in every stored version of a session; rows rewritten.

    Every row of the session is read (at most ``history_limit``): with encryption at
    rest a text search cannot see inside the values, so each is opened, scrubbed and
    sealed again with the store's cipher.
    """
    h = db._tables.history
    cipher = db.cipher

    def rewrite_rows() -> int:
        rewritten = 0
        with db._writer.begin() as conn:
            rows = conn.execute(
                sa.select(h.c.version, h.c.state, h.c.user_id).where(h.c.session_id == session_id)
            ).all()
            for row in rows:
                values: dict[str, Any] = {}
                texts = rewrite.sealed_texts(codec.split_object(row.state), session_id, cipher)
                if texts is not None:
                    values["state"] = codec.object_text(texts)
                if row.user_id == rewrite.user_id:
                    values["user_id"] = rewrite.pseudonym
                if values:
                    conn.execute(
                        sa.update(h)
                        .where(h.c.session_id == session_id, h.c.version == row.version)
                        .values(**values)
                    )
                    rewritten += 1
        return rewritten

    count: int = await db._run(rewrite_rows)
    return count


async def idle_sessions(
    db: SqlDb, before: float, *, after: tuple[float, str] | None, limit: int
) -> list[tuple[float, str]]:
    """(updated_at, session id) of sessions last updated before ``before``, oldest
    first, starting after the keyset ``after``; at most ``limit``."""
    s = db._tables.sessions
    query = sa.select(s.c.session_id, s.c.updated_at).where(s.c.updated_at < before)
    if after is not None:
        query = query.where(
            sa.or_(
                s.c.updated_at > after[0],
                sa.and_(s.c.updated_at == after[0], s.c.session_id > after[1]),
            )
        )
    query = query.order_by(s.c.updated_at, s.c.session_id).limit(limit)

    def fetch() -> list[tuple[float, str]]:
        with db._engine.connect() as conn:
            return [(float(row.updated_at), row.session_id) for row in conn.execute(query)]

    rows: list[tuple[float, str]] = await db._run(fetch)
    return rows


async def delete_old_history(
    db: SqlDb,
    before: float,
    cutoff_of: Callable[[str], float | None],
    *,
    limit: int,
    dry_run: bool = False,
    pages: int = 10,
) -> int:
    """Delete (at most ``limit``) history rows saved before their session's cutoff.

    ``before`` is the latest cutoff of any rule (rows newer than it are never read);
    ``cutoff_of(session_id)`` is the session's own cutoff (None: kept forever). Rows
    are read oldest first, ``limit`` a page, at most ``pages`` pages, so rows of a
    scope kept longer cannot starve the others. How many rows were (or, with
    ``dry_run``, would be) deleted.
    """
    h = db._tables.history

    def page(conn: sa.Connection, after: tuple[float, str, int] | None) -> list[Any]:
        query = sa.select(h.c.session_id, h.c.version, h.c.saved_at).where(h.c.saved_at < before)
        if after is not None:
            query = query.where(
                sa.tuple_(h.c.saved_at, h.c.session_id, h.c.version) > sa.tuple_(*after)
            )
        order = query.order_by(h.c.saved_at, h.c.session_id, h.c.version).limit(limit)
        return list(conn.execute(order))

    def run() -> int:
        doomed: list[tuple[str, int]] = []
        with db._writer.begin() as conn:
            after: tuple[float, str, int] | None = None
            for _ in range(pages):
                rows = page(conn, after)
                for row in rows:
                    cutoff = cutoff_of(row.session_id)
                    if cutoff is not None and row.saved_at < cutoff and len(doomed) < limit:
                        doomed.append((row.session_id, row.version))
                if len(rows) < limit or len(doomed) >= limit:
                    break
                last = rows[-1]
                after = (last.saved_at, last.session_id, last.version)
            if not dry_run:
                for session_id, version in doomed:
                    conn.execute(
                        sa.delete(h).where(h.c.session_id == session_id, h.c.version == version)
                    )
        return len(doomed)

    deleted: int = await db._run(run)
    return deleted
