"""The durable schema: table names and SQLAlchemy Core table objects.

Table names derive from one ``session_table`` name, so several independent stores
(Agno's ``SqliteStorage(table_name=...)``) can share one database file; each set of
tables carries its own Alembic version table. The two run-lease tables (see
``core/db/sql/lease.py``) are named after the sessions table as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

DEFAULT_SESSION_TABLE = "sessions"

#: arrival number of a queued run: BIGSERIAL on PostgreSQL, the rowid on SQLite
TICKET_SEQ = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


@dataclass(frozen=True, slots=True)
class TableNames:
    """Names of one store's tables, and the schema (PostgreSQL) they live in."""

    sessions: str
    history: str
    memories: str
    version: str
    schema: str | None = None

    @classmethod
    def for_session_table(cls, session_table: str | None, schema: str | None = None) -> TableNames:
        """Default names for ``sessions``; ``x_history``-style names for any other table."""
        name = session_table or DEFAULT_SESSION_TABLE
        if not name.replace("_", "").isalnum():
            raise ValueError(f"table name {name!r}: use letters, digits and underscores only")
        if name == DEFAULT_SESSION_TABLE:
            return cls("sessions", "session_history", "user_memories", "alembic_version", schema)
        return cls(name, f"{name}_history", f"{name}_memories", f"{name}_alembic_version", schema)

    @property
    def leases(self) -> str:
        """Run leases: one row per session whose lease is (or was) held."""
        return self._derived("leases")

    @property
    def lease_waiters(self) -> str:
        """Run-lease tickets: one row per run queued for a session, in arrival order."""
        return self._derived("lease_waiters")

    def _derived(self, suffix: str) -> str:
        base = "session" if self.sessions == DEFAULT_SESSION_TABLE else self.sessions
        return f"{base}_{suffix}"


@dataclass(frozen=True, slots=True)
class Tables:
    """Core table objects bound to one set of names."""

    sessions: sa.Table
    history: sa.Table
    memories: sa.Table
    leases: sa.Table
    lease_waiters: sa.Table


def build_tables(names: TableNames) -> Tables:
    """Table objects matching the schema the migrations create."""
    metadata = sa.MetaData(schema=names.schema)
    sessions = sa.Table(
        names.sessions,
        metadata,
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("owner_id", sa.Text),
        sa.Column("user_id", sa.Text),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
        sa.Column("save_id", sa.Text, nullable=False, server_default=""),
        sa.Column("data", sa.Text, nullable=False, server_default=""),
        # lines saves appended to the data (migration 0011, core/db/sql/data_column.py)
        sa.Column("data_tail", sa.Text, nullable=False, server_default=""),
        # the Redis incarnation that last claimed the session (migration 0010)
        sa.Column("epoch", sa.Text, nullable=False, server_default=""),
    )
    history = sa.Table(
        names.history,
        metadata,
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("version", sa.BigInteger, primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text),
        sa.Column("saved_at", sa.Double, nullable=False),
        sa.Column("save_id", sa.Text, nullable=False, server_default=""),
    )
    memories = sa.Table(
        names.memories,
        metadata,
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("memory_id", sa.Text, primary_key=True),
        sa.Column("memory", sa.Text, nullable=False),
        sa.Column("topics", sa.Text, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
    )
    leases = sa.Table(
        names.leases,
        metadata,
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("token", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Double, nullable=False),
    )
    lease_waiters = sa.Table(
        names.lease_waiters,
        metadata,
        sa.Column("seq", TICKET_SEQ, primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.Text, nullable=False),
        sa.Column("ticket", sa.Text, nullable=False, unique=True),
        sa.Column("alive_until", sa.Double, nullable=False),
        sa.Index(f"ix_{names.lease_waiters}_session_seq", "session_id", "seq"),
    )
    return Tables(sessions, history, memories, leases, lease_waiters)
