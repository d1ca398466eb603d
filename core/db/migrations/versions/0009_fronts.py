"""Hot stores in front of this durable store: one row per Redis (address, key prefix)
a serving process started with.

Named after the sessions table like the other derived tables (``session_fronts`` by
default). Written at the start of every bot and snapshotter process that serves
through Redis, read by ``statebot state`` before a write to the durable store alone
(``core/db/fronts.py``). The columns are written out here, frozen: a later change of
the table is a new migration.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.create_table(
        names._derived("fronts"),
        sa.Column("address", sa.Text, primary_key=True),
        sa.Column("key_prefix", sa.Text, primary_key=True),
        sa.Column("seen_by", sa.Text, nullable=False),
        sa.Column("seen_at", sa.Double, nullable=False),
        schema=names.schema,
    )


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.drop_table(names._derived("fronts"), schema=names.schema)
