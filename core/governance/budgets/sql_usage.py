"""Usage counters in SQL (SQLite, PostgreSQL): one table beside the store's sessions.

Adding is one transaction of upserts, ``INSERT … ON CONFLICT (scope, scope_id, day)
DO UPDATE SET tokens = tokens + excluded.tokens``: the database adds atomically, so
runs recording at once in several processes all count. The store shares its SqlDb's
engines, worker threads and migrations (0008 creates the table).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from core.db.sql.store import SqlDb
from core.db.sql.usage_tables import build_usage_table
from core.governance.budgets.model import Scope, Usage
from core.governance.budgets.store import UsageStore


class SqlUsageStore(UsageStore):
    """The usage counters of one SqliteDb or PostgresDb, in its database."""

    __slots__ = ("_db", "_table")

    def __init__(self, db: SqlDb) -> None:
        self._db = db
        self._table = build_usage_table(db.names)

    def __repr__(self) -> str:
        return f"SqlUsageStore({self._db!r})"

    async def aread(self, scopes: Sequence[Scope], day: str) -> list[Usage]:
        if not scopes:
            return []
        found: dict[tuple[str, str], Usage] = await self._db.atransact(
            self._db.engine, self._select, list(scopes), day
        )
        return [found.get((s.kind, s.id), Usage()) for s in scopes]

    def _select(self, conn: sa.Connection, scopes: list[Scope], day: str) -> dict[Any, Usage]:
        t = self._table
        wanted = sa.tuple_(t.c.scope, t.c.scope_id).in_([(s.kind, s.id) for s in scopes])
        query = sa.select(t.c.scope, t.c.scope_id, t.c.tokens, t.c.tool_calls).where(
            t.c.day == day, wanted
        )
        return {
            (row.scope, row.scope_id): Usage(int(row.tokens), int(row.tool_calls))
            for row in conn.execute(query)
        }

    async def aadd(self, scopes: Sequence[Scope], day: str, usage: Usage) -> None:
        if scopes and usage:
            await self._db.atransact(self._db.writer, self._upsert, list(scopes), day, usage)

    def _upsert(self, conn: sa.Connection, scopes: list[Scope], day: str, usage: Usage) -> None:
        t = self._table
        insert = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert
        now = time.time()
        rows = [
            {
                "scope": s.kind,
                "scope_id": s.id,
                "day": day,
                "tokens": usage.tokens,
                "tool_calls": usage.tool_calls,
                "updated_at": now,
            }
            for s in scopes
        ]
        statement = insert(t).values(rows)
        statement = statement.on_conflict_do_update(
            index_elements=[t.c.scope, t.c.scope_id, t.c.day],
            set_={
                "tokens": t.c.tokens + statement.excluded.tokens,
                "tool_calls": t.c.tool_calls + statement.excluded.tool_calls,
                "updated_at": statement.excluded.updated_at,
            },
        )
        conn.execute(statement)

    async def aerase(self, scopes: Sequence[Scope], today: str) -> int:
        if not scopes:
            return 0
        erased: int = await self._db.atransact(self._db.writer, self._delete, list(scopes))
        return erased

    def _delete(self, conn: sa.Connection, scopes: list[Scope]) -> int:
        t = self._table
        wanted = sa.tuple_(t.c.scope, t.c.scope_id).in_([(s.kind, s.id) for s in scopes])
        return int(conn.execute(sa.delete(t).where(wanted)).rowcount)
