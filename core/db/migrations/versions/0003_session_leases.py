"""Run leases shared by every process: the lease per session and the queue of tickets.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TICKET_SEQ, TableNames

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.create_table(
        names.leases,
        sa.Column("session_id", sa.Text, primary_key=True),
        sa.Column("token", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Double, nullable=False),
        schema=names.schema,
    )
    op.create_table(
        names.lease_waiters,
        sa.Column("seq", TICKET_SEQ, primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.Text, nullable=False),
        sa.Column("ticket", sa.Text, nullable=False, unique=True),
        sa.Column("alive_until", sa.Double, nullable=False),
        schema=names.schema,
    )
    # the queue of one session, oldest first: every lease decision reads it this way
    op.create_index(
        f"ix_{names.lease_waiters}_session_seq",
        names.lease_waiters,
        ["session_id", "seq"],
        schema=names.schema,
    )


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.drop_table(names.lease_waiters, schema=names.schema)
    op.drop_table(names.leases, schema=names.schema)
