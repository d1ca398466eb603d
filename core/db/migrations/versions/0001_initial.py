"""Sessions, version history and user memories.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.create_table(
        names.sessions,
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("owner_id", sa.Text),
        sa.Column("user_id", sa.Text),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
        schema=names.schema,
    )
    op.create_index(
        f"ix_{names.sessions}_owner_updated",
        names.sessions,
        ["owner_id", "updated_at"],
        schema=names.schema,
    )
    op.create_index(
        f"ix_{names.sessions}_updated", names.sessions, ["updated_at"], schema=names.schema
    )
    op.create_table(
        names.history,
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("version", sa.BigInteger, primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text),
        sa.Column("saved_at", sa.Double, nullable=False),
        schema=names.schema,
    )
    op.create_table(
        names.memories,
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("memory_id", sa.Text, primary_key=True),
        sa.Column("memory", sa.Text, nullable=False),
        sa.Column("topics", sa.Text, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        schema=names.schema,
    )


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.drop_table(names.memories, schema=names.schema)
    op.drop_table(names.history, schema=names.schema)
    op.drop_table(names.sessions, schema=names.schema)
