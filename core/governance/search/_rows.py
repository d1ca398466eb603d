"""The rows of a listing, per store: registered per backend on :func:`store_rows`.

The default filters ``alist_sessions`` in memory (InMemoryDb); SQL stores and RedisDb
register their own (``search/sql.py``, ``search/redis.py``).
"""

from __future__ import annotations

import functools
import sys

from core.db.base import BaseDb
from core.governance.search._query import Cursor, SessionQuery, SessionRow, filtered

__all__ = ["ALL", "store_rows"]

#: no limit
ALL = sys.maxsize


@functools.singledispatch
async def store_rows(
    db: BaseDb,
    query: SessionQuery,
    want: int,
    after: Cursor | None,
    only: frozenset[str] | None = None,
) -> list[SessionRow]:
    """Rows matching ``query`` (and among ``only``, when given), in list order, at most
    ``want``."""
    if only is not None and not only:
        return []
    records = await db.alist_sessions(limit=ALL)
    if only is not None:
        records = [r for r in records if r.session_id in only]
    return filtered(records, query, after)[:want]
