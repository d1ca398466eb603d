"""A session's data appended to: ``data_tail`` after ``data``.

A save that only adds runs and audit entries (and drops the oldest) appends their lines
to ``data_tail`` instead of writing ``data`` whole (``core/db/sql/data_column.py``).
Rows written before this revision get "" (their data is whole, as before).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    with op.batch_alter_table(names.sessions, schema=names.schema) as batch:
        batch.add_column(sa.Column("data_tail", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    with op.batch_alter_table(names.sessions, schema=names.schema) as batch:
        batch.drop_column("data_tail")
