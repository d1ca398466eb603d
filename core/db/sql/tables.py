"""The durable schema: table names and SQLAlchemy Core table objects.

Table names derive from one ``session_table`` name, so several independent stores
(Agno's ``SqliteStorage(table_name=...)``) can share one database file; each set of
tables carries its own Alembic version table.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

DEFAULT_SESSION_TABLE = "sessions"


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


@dataclass(frozen=True, slots=True)
class Tables:
    """Core table objects bound to one set of names."""

    sessions: sa.Table
    history: sa.Table
    memories: sa.Table


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
    return Tables(sessions, history, memories)
