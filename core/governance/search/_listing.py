"""One page of a listing: the store's rows, their snapshot status, the next cursor."""

from __future__ import annotations

from dataclasses import replace

from core.db.base import BaseDb
from core.governance.search._query import HOT_SCAN, Cursor, SessionPage, SessionQuery, SessionRow
from core.governance.search._rows import store_rows

__all__ = ["search_sessions"]


async def search_sessions(
    db: BaseDb, query: SessionQuery, *, limit: int = 50, after: Cursor | None = None
) -> SessionPage:
    """One page of sessions matching ``query``, most recently updated first."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    quarantined = await _quarantined(db)
    want = limit + 1  # one more tells whether a next page exists
    only: frozenset[str] | None = None
    if query.status == "quarantined":
        only = frozenset(quarantined)  # a handful: read just those
    elif query.status == "clean":
        # status is not a column: read enough that the others cannot crowd out a page
        want += len(quarantined) + (HOT_SCAN if db.hot else 0)
    rows = await store_rows(db, query, want, after, only)
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
