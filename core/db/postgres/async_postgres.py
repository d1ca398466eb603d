"""AsyncPostgresDb: Agno's async PostgreSQL store, at Agno's path.

Every store here is async inside (each blocking call runs in a worker thread, see
:mod:`core.db.sql.store`), so the async store is the same store: the same tables,
leases, versions and guarantees, and agents, teams and workflows run on it with
``await arun(...)`` or ``run(...)`` alike. Agno's async URLs
(``postgresql+psycopg_async://``, ``postgresql+asyncpg://``) name the same server and
are served through psycopg 3. ``await db._create_all_tables()`` creates the tables
up front, as in Agno.
"""

from __future__ import annotations

from core.db.postgres.postgres import PostgresDb


class AsyncPostgresDb(PostgresDb):
    """``AsyncPostgresDb(db_url=..., db_schema=..., session_table=...)``: PostgresDb's
    arguments, Agno's async face."""

    async def _create_all_tables(self) -> None:
        """Create the tables (and the schema) now, as Agno's fixtures expect."""
        await self.acall(lambda: None)  # acall migrates the schema before its call
