"""Indexes for the console's session listing and search (core/governance/search/_sql.py).

* sessions (updated_at, session_id): the first page, and each next page by keyset,
  read backwards in index order (0001's (owner_id, updated_at) serves one agent);
* sessions (session_id COLLATE "C"), PostgreSQL only: a platform/workspace/channel
  prefix as a binary range (SQLite's primary key is already in binary order);
* history (user_id, session_id) and sessions (user_id): the sessions a user changed,
  and the ones they saved last.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _indexes(names: TableNames, dialect: str) -> list[tuple[str, str, list[object]]]:
    """(index name, table, columns) of this revision, on this database."""
    indexes: list[tuple[str, str, list[object]]] = [
        (f"ix_{names.sessions}_recent", names.sessions, ["updated_at", "session_id"]),
        (f"ix_{names.history}_user", names.history, ["user_id", "session_id"]),
        (f"ix_{names.sessions}_user", names.sessions, ["user_id"]),
    ]
    if dialect == "postgresql":
        binary = sa.text('session_id COLLATE "C"')
        indexes.append((f"ix_{names.sessions}_id_binary", names.sessions, [binary]))
    return indexes


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    for name, table, columns in _indexes(names, op.get_bind().dialect.name):
        op.create_index(name, table, columns, schema=names.schema)  # type: ignore[arg-type]


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    for name, table, _ in _indexes(names, op.get_bind().dialect.name):
        op.drop_index(name, table_name=table, schema=names.schema)
