"""Scheduled runs owned by a session: one row per pending, claimed or firing run.

See ``core/schedule/sql_store.py``. Polling reads the ``due_at`` index; erasing a
session's schedules reads the ``session_id`` index.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import context, op

from core.db.sql.tables import TableNames
from core.schedule.sql_store import schedule_columns, schedules_table_name

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    name = schedules_table_name(names)
    op.create_table(name, *schedule_columns(), schema=names.schema)
    op.create_index(f"ix_{name}_due", name, ["due_at"], schema=names.schema)
    op.create_index(f"ix_{name}_session", name, ["session_id"], schema=names.schema)


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    op.drop_table(schedules_table_name(names), schema=names.schema)
