"""The database behind Slack installations and OAuth states: the durable store's database.

Installations live in the same database as the sessions (``STATEBOT_DB_URL``: SQLite or
PostgreSQL), in tables created by migration 0005 of the same Alembic chain. This
module opens the engines and brings the schema to head on first use. slack_sdk's own
SQLAlchemy stores do not fit: they keep tokens in plain text, create their tables
outside our migrations and need an async driver; ours run blocking SQLAlchemy Core in
worker threads, as ``core.db.sql.store`` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from core.db.sql.engine import postgres_engine, sqlite_engines, unavailable_as_store_error
from core.db.sql.installation_tables import (
    InstallationTableNames,
    InstallationTables,
    build_installation_tables,
)
from core.db.sql.migrate import migrate
from core.db.sql.tables import TableNames
from core.db.sqlite import sqlite_path

T = TypeVar("T")


class InstallationDb:
    """Engines, table objects and the one-time migration for the installation tables."""

    __slots__ = ("_engine", "_migrate_lock", "_migrated", "_names", "_where", "_writer", "tables")

    def __init__(
        self, engine: sa.Engine, *, writer: sa.Engine | None = None, names: TableNames
    ) -> None:
        self._engine = engine
        self._writer = writer or engine
        self._names = names
        self.tables: InstallationTables = build_installation_tables(
            InstallationTableNames.for_store(names)
        )
        self._where = engine.url.render_as_string(hide_password=True)
        self._migrated = False
        self._migrate_lock = threading.Lock()

    @classmethod
    def open(
        cls, url: str, *, schema: str | None = None, session_table: str | None = None
    ) -> InstallationDb:
        """The database a ``STATEBOT_DB_URL`` names (``sqlite:///…``, a path, ``postgresql…``)."""
        url = url.strip()
        scheme = url.split("://", 1)[0].lower() if "://" in url else ""
        names = TableNames.for_session_table(session_table, schema)
        if scheme.startswith(("postgresql", "postgres")):
            return cls(postgres_engine(url, connect_timeout=5, pool_size=5), names=names)
        if scheme == "" or scheme.startswith("sqlite"):
            path = sqlite_path(None, url) if scheme else sqlite_path(url, None)
            if path is None:
                raise ValueError(
                    "Slack installations need a database file or PostgreSQL, not an in-memory "
                    "SQLite database (they must survive restarts); set STATEBOT_DB_URL"
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            engine, writer = sqlite_engines(path, busy_timeout=30.0, synchronous="FULL")
            return cls(engine, writer=writer, names=names)
        raise ValueError(
            f"Slack installations are kept in the durable store; STATEBOT_DB_URL scheme "
            f"{scheme!r} is not one (use sqlite:///file.db or postgresql://…)"
        )

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self._engine.dialect.name

    def upsert(self, table: sa.Table) -> Any:
        """An INSERT that can take ``on_conflict_do_update`` on this dialect."""
        return (postgresql if self.dialect == "postgresql" else sqlite).insert(table)

    async def read(self, fn: Callable[[sa.Connection], T]) -> T:
        """Run ``fn(conn)`` in a read transaction, off the event loop."""
        return await asyncio.to_thread(self._call, self._engine, fn)

    async def write(self, fn: Callable[[sa.Connection], T]) -> T:
        """Run ``fn(conn)`` in a write transaction (SQLite: BEGIN IMMEDIATE), off the loop."""
        return await asyncio.to_thread(self._call, self._writer, fn)

    def _call(self, engine: sa.Engine, fn: Callable[[sa.Connection], T]) -> T:
        with unavailable_as_store_error(self._where):
            self._ensure_schema()
            with engine.begin() as conn:
                return fn(conn)

    def _ensure_schema(self) -> None:
        if self._migrated:
            return
        with self._migrate_lock:
            if self._migrated:
                return
            with self._writer.begin() as conn:
                migrate(conn, self._names)  # serialized with the session store's migration
            self._migrated = True

    @contextlib.asynccontextmanager
    async def exclusive(self, key: str) -> AsyncIterator[None]:
        """Hold a cross-process lock named ``key`` for the block (PostgreSQL).

        A transaction-scoped advisory lock on a connection of its own, so the block
        may write through the pool meanwhile. SQLite has no such lock; one machine's
        processes rely on the caller's in-process lock (see ``bots.adapters.slack.rotation``).
        """
        if self.dialect != "postgresql":
            yield
            return
        conn = await asyncio.to_thread(self._lock_connection, key)
        try:
            yield
        finally:
            await asyncio.to_thread(conn.close)  # ends the transaction: the lock is released

    def _lock_connection(self, key: str) -> sa.Connection:
        with unavailable_as_store_error(self._where):
            self._ensure_schema()
            conn = self._engine.connect()
            try:
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key})
            except BaseException:
                conn.close()
                raise
            return conn

    async def aping(self) -> None:
        """Reach the database and migrate it; StoreUnavailableError when it is down."""
        await self.read(lambda conn: conn.execute(sa.text("SELECT 1")))

    async def aclose(self) -> None:
        """Release the connection pools."""
        await asyncio.to_thread(self._engine.dispose)  # the writer shares its pool
