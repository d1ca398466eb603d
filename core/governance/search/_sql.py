"""The listing on a SQL store: one query on the sessions table.

``updated_at``/``session_id`` order with a keyset condition (never ``OFFSET``), an
id-prefix range compared in binary (``COLLATE "C"`` on PostgreSQL) so an index on the
id serves it, the agent as ``owner_id``, and a user as the last user *or* any user in
the kept history. Size is the length of the stored JSON, computed in SQL. Migration
0006 adds the indexes these conditions use.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from core.db.sql.store import SqlDb
from core.governance.search._query import Cursor, SessionQuery, SessionRow, ordered
from core.governance.search._rows import ALL, store_rows

__all__ = ["prefix_upper", "sql_statement"]

_IDS_PER_QUERY = 500  # well below SQLite's bound-parameter limit


@store_rows.register
async def _sql_store_rows(
    db: SqlDb,
    query: SessionQuery,
    want: int,
    after: Cursor | None,
    only: frozenset[str] | None = None,
) -> list[SessionRow]:
    if only is not None and not only:
        return []
    if only is None:
        return await _sql_rows(db, query, want, after, None)
    found: list[SessionRow] = []
    ids = sorted(only)
    for start in range(0, len(ids), _IDS_PER_QUERY):
        chunk = frozenset(ids[start : start + _IDS_PER_QUERY])
        found += await _sql_rows(db, query, want, after, chunk)
    return ordered(found)[:want]


def prefix_upper(prefix: str) -> str:
    """The least string greater than every string starting with ``prefix`` (binary order)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _starts(column: Any, prefix: str) -> Any:
    """``column`` starts with ``prefix``, as a range an index on the column serves."""
    return sa.and_(column >= prefix, column < prefix_upper(prefix))


async def _sql_rows(
    db: SqlDb, query: SessionQuery, want: int, after: Cursor | None, only: frozenset[str] | None
) -> list[SessionRow]:
    statement = sql_statement(db, query, want, after)
    if only is not None:
        statement = statement.where(db.tables.sessions.c.session_id.in_(sorted(only)))

    def fetch() -> list[SessionRow]:
        with db.engine.connect() as conn:
            return [_sql_row(row) for row in conn.execute(statement)]

    # the store's own runner: schema migrated, "cannot reach" translated, in a thread
    rows: list[SessionRow] = await db.acall(fetch)
    return rows


def sql_statement(db: SqlDb, query: SessionQuery, want: int, after: Cursor | None) -> Any:
    """The listing's SELECT (bench/web_sessions_list.py prints the plan PostgreSQL picks)."""
    s, h = db.tables.sessions, db.tables.history
    postgres = db.engine.dialect.name == "postgresql"
    size = sa.func.length(s.c.state) + sa.func.length(s.c.data)
    statement = sa.select(
        s.c.session_id,
        s.c.version,
        s.c.kind,
        s.c.owner_id,
        s.c.user_id,
        s.c.updated_at,
        size.label("size"),
    )
    session_id = s.c.session_id.collate("C") if postgres else s.c.session_id
    if query.scope:
        statement = statement.where(_starts(session_id, query.scope))
    if query.id_prefix:
        whole = query.id_prefix.removesuffix(":")
        statement = statement.where(sa.or_(session_id == whole, _starts(session_id, whole + ":")))
    if query.agent is not None:
        statement = statement.where(s.c.owner_id == query.agent)
    if query.user is not None:
        # the sessions the user changed (history) or saved last, as one id set found
        # through two indexes, then joined on the primary key: never a scan of sessions
        changed = sa.union(
            sa.select(h.c.session_id).where(h.c.user_id == query.user),
            sa.select(s.c.session_id).where(s.c.user_id == query.user),
        )
        statement = statement.where(s.c.session_id.in_(changed))
    if after is not None:
        statement = statement.where(
            sa.or_(
                s.c.updated_at < after.updated_at,
                sa.and_(s.c.updated_at == after.updated_at, s.c.session_id < after.session_id),
            )
        )
    statement = statement.order_by(s.c.updated_at.desc(), s.c.session_id.desc())
    return statement.limit(want) if want < ALL else statement


def _sql_row(row: Any) -> SessionRow:
    return SessionRow(
        session_id=row.session_id,
        version=row.version,
        kind=row.kind,
        owner_id=row.owner_id,
        user_id=row.user_id,
        updated_at=row.updated_at,
        size=int(row.size or 0),
    )
