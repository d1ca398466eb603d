"""Read-only, paged listing and search of sessions for the web console.

One page of session summaries (no state is read) matching a :class:`SessionQuery`,
most recently updated first (ties: session id, descending), with a keyset cursor for the next page.

Each store's rows come from :func:`~core.governance.search._rows.store_rows`, registered
per backend (the modules below are imported here, so the registrations are in place):

* **SQL stores** (SqliteDb, PostgresDb, ``_sql.py``) answer with one query on the sessions table:
  ``updated_at``/``session_id`` order with a keyset condition (never ``OFFSET``), an
  id-prefix range compared in binary (``COLLATE "C"`` on PostgreSQL) so an index on
  the id serves it, the agent as ``owner_id``, and a user as the last user *or* any
  user in the kept history. Size is the length of the stored JSON, computed in SQL.
  Migration 0006 adds the indexes these conditions use.
* **RedisDb** (``_redis.py``) merges, like ``RedisDb.alist_sessions``: the durable store's page, and
  the most recent :data:`HOT_SCAN` sessions of Redis's hot index filtered the same
  way; the higher version wins. A session whose Redis version is ahead of the durable
  copy is *dirty* (its snapshot is pending); quarantined sessions come from the
  store's snapshot status.
* **Other stores** (InMemoryDb) filter ``alist_sessions`` in memory.

Workspace scope is an id prefix as well (``scope``), so a scoped admin's listing never
contains another workspace's session, whatever the search says.
"""

from __future__ import annotations

# each backend's rows register themselves on import
from core.governance.search import _redis, _sql  # noqa: F401
from core.governance.search._listing import search_sessions
from core.governance.search._query import (
    HOT_SCAN,
    Cursor,
    SessionPage,
    SessionQuery,
    SessionRow,
    Status,
)
from core.governance.search._sql import prefix_upper, sql_statement

__all__ = [
    "HOT_SCAN",
    "Cursor",
    "SessionPage",
    "SessionQuery",
    "SessionRow",
    "Status",
    "prefix_upper",
    "search_sessions",
    "sql_statement",
]
