"""Content identity of a version: the id of the save that produced it.

A version number alone cannot tell two different contents apart when a hot store
that fell behind reuses it; the save id can. Rows written before this revision get an
empty id (unknown), which compares equal to nothing but itself.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    for table in (names.sessions, names.history):
        with op.batch_alter_table(table, schema=names.schema) as batch:
            batch.add_column(sa.Column("save_id", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    for table in (names.history, names.sessions):
        with op.batch_alter_table(table, schema=names.schema) as batch:
            batch.drop_column("save_id")
