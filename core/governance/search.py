"""Read-only, paged listing and search of sessions for the web console.

One page of session summaries (no state is read) matching a :class:`SessionQuery`,
most recently updated first (ties: session id, descending), with a keyset cursor for the next page.

* **SQL stores** (SqliteDb, PostgresDb) answer with one query on the sessions table:
  ``updated_at``/``session_id`` order with a keyset condition (never ``OFFSET``), an
  id-prefix range compared in binary (``COLLATE "C"`` on PostgreSQL) so an index on
  the id serves it, the agent as ``owner_id``, and a user as the last user *or* any
  user in the kept history. Size is the length of the stored JSON, computed in SQL.
  Migration 0006 adds the indexes these conditions use.
* **RedisDb** merges, like ``RedisDb.alist_sessions``: the durable store's page, and
  the most recent :data:`HOT_SCAN` sessions of Redis's hot index filtered the same
  way; the higher version wins. A session whose Redis version is ahead of the durable
  copy is *dirty* (its snapshot is pending); quarantined sessions come from the
  store's snapshot status.
* **Other stores** (InMemoryDb) filter ``alist_sessions`` in memory.

Workspace scope is an id prefix as well (``scope``), so a scoped admin's listing never
contains another workspace's session, whatever the search says.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal

import sqlalchemy as sa

from core.db.base import BaseDb
from core.db.records import SessionRecord

__all__ = [
    "HOT_SCAN",
    "Cursor",
    "SessionPage",
    "SessionQuery",
    "SessionRow",
    "search_sessions",
]

#: sessions of Redis's hot index a search looks at (the most recently changed ones;
#: a dirty session is recent by nature, so its newer version is among them)
HOT_SCAN = 2_000
_ALL = sys.maxsize
_IDS_PER_QUERY = 500  # well below SQLite's bound-parameter limit

Status = Literal["clean", "dirty", "quarantined"]


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page starts: after this (updated_at, session_id)."""

    updated_at: float
    session_id: str

    def encode(self) -> str:
        """Opaque text for a URL."""
        return json.dumps([self.updated_at, self.session_id], separators=(",", ":"))

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """From :meth:`encode`; ValueError for anything else."""
        try:
            updated_at, session_id = json.loads(text)
        except (TypeError, ValueError):
            raise ValueError("not a page cursor") from None
        if not isinstance(updated_at, int | float) or not isinstance(session_id, str):
            raise ValueError("not a page cursor")
        return cls(float(updated_at), session_id)

    def before(self, updated_at: float, session_id: str) -> bool:
        """True when a row with these keys comes after the cursor in list order."""
        return (updated_at, session_id) < (self.updated_at, self.session_id)


@dataclass(frozen=True, slots=True)
class SessionQuery:
    """What to list. Every given condition must hold."""

    #: whole leading components of the session id (platform/workspace/channel, built
    #: by the caller): the id is this, or continues it after a ":" ("slack:T1:C1"
    #: matches "slack:T1:C1" and "slack:T1:C1:1700.1", never "slack:T1:C10")
    id_prefix: str = ""
    #: the viewer's scope: the session id starts with it too ("" sees everything)
    scope: str = ""
    #: the owning agent/team/workflow id
    agent: str | None = None
    #: a user key: the last user, or any user in the kept history
    user: str | None = None
    #: only sessions with this snapshot status
    status: Status | None = None


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session of a listing: meta, size and snapshot status, no state."""

    session_id: str
    version: int
    kind: str
    owner_id: str | None
    user_id: str | None
    updated_at: float
    #: characters of the stored state and data JSON
    size: int
    status: Status = "clean"


@dataclass(frozen=True, slots=True)
class SessionPage:
    """One page of a listing and the cursor of the next (None: this is the last)."""

    rows: list[SessionRow]
    next_cursor: Cursor | None


async def search_sessions(
    db: BaseDb, query: SessionQuery, *, limit: int = 50, after: Cursor | None = None
) -> SessionPage:
    """One page of sessions matching ``query``, most recently updated first."""
    from core.db.redis import RedisDb  # imported here: SQL-only deployments need no redis

    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    quarantined = await _quarantined(db)
    want = limit + 1  # one more tells whether a next page exists
    only: frozenset[str] | None = None
    if query.status == "quarantined":
        only = frozenset(quarantined)  # a handful: read just those
    elif query.status == "clean":
        # status is not a column: read enough that the others cannot crowd out a page
        want += len(quarantined) + (HOT_SCAN if isinstance(db, RedisDb) else 0)
    rows = await _rows(db, query, want, after, only)
    rows = [_with_status(r, quarantined) for r in rows]
    if query.status is not None:
        rows = [r for r in rows if r.status == query.status]
    page = rows[:limit]
    more = len(rows) > limit
    cursor = Cursor(page[-1].updated_at, page[-1].session_id) if more and page else None
    return SessionPage(page, cursor)


async def _quarantined(db: BaseDb) -> set[str]:
    status = await db.asnapshot_status()
    return set() if status is None else {e.session_id for e in status.quarantined}


def _with_status(row: SessionRow, quarantined: set[str]) -> SessionRow:
    if row.session_id in quarantined:
        return replace(row, status="quarantined")
    return row


async def _rows(
    db: BaseDb,
    query: SessionQuery,
    want: int,
    after: Cursor | None,
    only: frozenset[str] | None = None,
) -> list[SessionRow]:
    """Rows matching ``query`` (and among ``only``, when given), in list order."""
    from core.db.redis import RedisDb
    from core.db.sql.store import SqlDb

    if only is not None and not only:
        return []
    if isinstance(db, SqlDb):
        if only is None:
            return await _sql_rows(db, query, want, after, None)
        found: list[SessionRow] = []
        ids = sorted(only)
        for start in range(0, len(ids), _IDS_PER_QUERY):
            chunk = frozenset(ids[start : start + _IDS_PER_QUERY])
            found += await _sql_rows(db, query, want, after, chunk)
        return _ordered(found)[:want]
    if isinstance(db, RedisDb):
        return await _redis_rows(db, query, want, after, only)
    records = await db.alist_sessions(limit=_ALL)
    if only is not None:
        records = [r for r in records if r.session_id in only]
    return _filtered(records, query, after)[:want]


def _ordered(rows: Iterable[SessionRow]) -> list[SessionRow]:
    """List order: most recently updated first, then session id descending."""
    return sorted(rows, key=lambda r: (r.updated_at, r.session_id), reverse=True)


# -- SQL ---------------------------------------------------------------------------------
def prefix_upper(prefix: str) -> str:
    """The least string greater than every string starting with ``prefix`` (binary order)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _starts(column: Any, prefix: str) -> Any:
    """``column`` starts with ``prefix``, as a range an index on the column serves."""
    return sa.and_(column >= prefix, column < prefix_upper(prefix))


async def _sql_rows(
    db: Any, query: SessionQuery, want: int, after: Cursor | None, only: frozenset[str] | None
) -> list[SessionRow]:
    statement = _sql_statement(db, query, want, after)
    if only is not None:
        statement = statement.where(db._tables.sessions.c.session_id.in_(sorted(only)))

    def fetch() -> list[SessionRow]:
        with db._engine.connect() as conn:
            return [_sql_row(row) for row in conn.execute(statement)]

    # the store's own runner: schema migrated, "cannot reach" translated, in a thread
    rows: list[SessionRow] = await db._run(fetch)
    return rows


def _sql_statement(db: Any, query: SessionQuery, want: int, after: Cursor | None) -> Any:
    s, h = db._tables.sessions, db._tables.history
    postgres = db._engine.dialect.name == "postgresql"
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
    return statement.limit(want) if want < _ALL else statement


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


# -- Redis -------------------------------------------------------------------------------
async def _redis_rows(
    db: Any, query: SessionQuery, want: int, after: Cursor | None, only: frozenset[str] | None
) -> list[SessionRow]:
    hot = await db.dirty.list_recent(owner_id=query.agent, limit=HOT_SCAN)
    if only is not None:
        hot = [r for r in hot if r.session_id in only]
    hot_rows = {r.session_id: r for r in _filtered(hot, query, after)}
    if db.snapshot_to is None:
        # Redis alone is the only copy, by choice: nothing waits for a snapshot
        return _ordered(hot_rows.values())[:want]
    # the durable versions of the hot sessions: a session is dirty when Redis is ahead
    everywhere = SessionQuery(scope=query.scope)
    durable_hot = await _rows(db.snapshot_to, everywhere, _ALL, None, frozenset(hot_rows))
    durable_version = {r.session_id: r.version for r in durable_hot}
    merged: dict[str, SessionRow] = {}
    if query.status != "dirty":  # a dirty session is always among the hot ones
        page = await _rows(db.snapshot_to, query, want, after, only)
        merged = {r.session_id: r for r in page}
    for session_id, row in hot_rows.items():
        durable = durable_version.get(session_id)
        if durable is None or durable < row.version:
            merged[session_id] = replace(row, status="dirty")
    return _ordered(merged.values())[:want]


# -- in memory ---------------------------------------------------------------------------
def _filtered(
    records: Iterable[SessionRecord], query: SessionQuery, after: Cursor | None
) -> list[SessionRow]:
    """Records matching ``query`` after ``after``, in list order (the SQL rules, in Python).

    The user condition sees only the last user here: other stores keep no user index.
    """
    rows: list[SessionRow] = []
    for record in records:
        sid = record.session_id
        if not (sid.startswith(query.scope) and _has_components(sid, query.id_prefix)):
            continue
        if query.agent is not None and record.owner_id != query.agent:
            continue
        if query.user is not None and record.user_id != query.user:
            continue
        if after is not None and not after.before(record.updated_at, sid):
            continue
        rows.append(_record_row(record))
    return _ordered(rows)


def _has_components(session_id: str, id_prefix: str) -> bool:
    whole = id_prefix.removesuffix(":")
    return not whole or session_id == whole or session_id.startswith(whole + ":")


def _record_row(record: SessionRecord) -> SessionRow:
    state = json.dumps(record.state, ensure_ascii=False, separators=(",", ":"))
    return SessionRow(
        session_id=record.session_id,
        version=record.version,
        kind=record.kind,
        owner_id=record.owner_id,
        user_id=record.user_id,
        updated_at=record.updated_at,
        size=len(state) + len(record.data),
    )
