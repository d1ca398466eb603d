"""The listing on RedisDb: the durable store's page merged with Redis's hot sessions.

Like ``RedisDb.alist_sessions``: the durable store's page, and the most recent
:data:`~core.governance.search._query.HOT_SCAN` sessions of Redis's hot index filtered
the same way; the higher version wins. A session whose Redis version is ahead of the
durable copy is *dirty* (its snapshot is pending).
"""

from __future__ import annotations

from dataclasses import replace

from core.db.redis.store import RedisDb
from core.governance.search._query import (
    HOT_SCAN,
    Cursor,
    SessionQuery,
    SessionRow,
    filtered,
    ordered,
)
from core.governance.search._rows import ALL, store_rows

__all__: list[str] = []  # registers RedisDb's rows on store_rows


@store_rows.register
async def _redis_rows(
    db: RedisDb,
    query: SessionQuery,
    want: int,
    after: Cursor | None,
    only: frozenset[str] | None = None,
) -> list[SessionRow]:
    if only is not None and not only:
        return []
    hot = await db.dirty.list_recent(owner_id=query.agent, limit=HOT_SCAN)
    if only is not None:
        hot = [r for r in hot if r.session_id in only]
    hot_rows = {r.session_id: r for r in filtered(hot, query, after)}
    if db.snapshot_to is None:
        # Redis alone is the only copy, by choice: nothing waits for a snapshot
        return ordered(hot_rows.values())[:want]
    # the durable versions of the hot sessions: a session is dirty when Redis is ahead
    everywhere = SessionQuery(scope=query.scope)
    durable_hot = await store_rows(db.snapshot_to, everywhere, ALL, None, frozenset(hot_rows))
    durable_version = {r.session_id: r.version for r in durable_hot}
    merged: dict[str, SessionRow] = {}
    if query.status != "dirty":  # a dirty session is always among the hot ones
        page = await store_rows(db.snapshot_to, query, want, after, only)
        merged = {r.session_id: r for r in page}
    for session_id, row in hot_rows.items():
        durable = durable_version.get(session_id)
        if durable is None or durable < row.version:
            merged[session_id] = replace(row, status="dirty")
    return ordered(merged.values())[:want]
