"""The session's own data besides its state: run history, name (a JSON object as text).

Stored with the session row, written in the same transaction as the state, snapshotted
and deleted with it. Rows written before this revision get "" (no data).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    with op.batch_alter_table(names.sessions, schema=names.schema) as batch:
        batch.add_column(sa.Column("data", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    with op.batch_alter_table(names.sessions, schema=names.schema) as batch:
        batch.drop_column("data")
