"""Usage counters of budgets: one row per scope (session, user, channel) and UTC day.

Named after the sessions table like the other derived tables (``session_usage`` by
default). Incremented by an upsert in ``core/governance/budgets/sql_usage.py``; the primary key
(scope, scope_id, day) is the row a run's usage adds to. The columns are written out
here, frozen: a later change of the table is a new migration.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.create_table(
        names._derived("usage"),
        sa.Column("scope", sa.Text, primary_key=True),
        sa.Column("scope_id", sa.Text, primary_key=True),
        sa.Column("day", sa.Text, primary_key=True),
        sa.Column("tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("tool_calls", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.Double, nullable=False),
        schema=names.schema,
    )


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.drop_table(names._derived("usage"), schema=names.schema)
