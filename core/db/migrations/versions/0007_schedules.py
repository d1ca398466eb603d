"""Scheduled runs owned by a session: one row per pending, claimed or firing run.

Named after the sessions table like the lease tables (``session_schedules`` by
default). Read and written by ``core/schedule/sql_store.py``; polling reads the
``due_at`` index, erasing a session's schedules the ``session_id`` index. The columns
are written out here, frozen: a later change of the table is a new migration.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    name = names._derived("schedules")
    op.create_table(
        name,
        sa.Column("schedule_id", sa.Text, primary_key=True),
        sa.Column("session_id", sa.Text, nullable=False),
        sa.Column("owner_id", sa.Text),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text),
        sa.Column("input", sa.Text, nullable=False),
        sa.Column("tz", sa.Text, nullable=False),
        sa.Column("cron", sa.Text),
        sa.Column("target", sa.Text, nullable=False, server_default=""),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("rev", sa.BigInteger, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("nominal_at", sa.Double, nullable=False),
        sa.Column("due_at", sa.Double, nullable=False),
        sa.Column("claim_token", sa.Text, nullable=False, server_default=""),
        sa.Column("cancel_requested", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("last_error", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", sa.Double, nullable=False),
        schema=names.schema,
    )
    op.create_index(f"ix_{name}_due", name, ["due_at"], schema=names.schema)
    op.create_index(f"ix_{name}_session", name, ["session_id"], schema=names.schema)


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.drop_table(names._derived("schedules"), schema=names.schema)
