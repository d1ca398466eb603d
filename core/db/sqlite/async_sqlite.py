"""AsyncSqliteDb: Agno's async SQLite store, at Agno's path.

Every store here is async inside (each blocking call runs in a worker thread, see
:mod:`core.db.sql.store`), so the async store is the same store: the same tables,
leases, versions and guarantees, and agents, teams and workflows run on it with
``await arun(...)`` or ``run(...)`` alike. It adds what Agno's async store offers
on top: ``await db._create_all_tables()`` creates the tables up front.
"""

from __future__ import annotations

from core.db.sqlite.sqlite import SqliteDb


class AsyncSqliteDb(SqliteDb):
    """``AsyncSqliteDb(db_file="tmp/agents.db", session_table="sessions")``: SqliteDb's
    arguments, Agno's async face."""

    async def _create_all_tables(self) -> None:
        """Create the tables now (Agno's fixtures call it before the first run)."""
        await self.acall(lambda: None)  # acall migrates the schema before its call
