"""The schedules table (migration 0007), named after the sessions table.

Defined with the store's other tables because storage reaches it too: erasure finds a
user's sessions through their schedules (``core/db/sql/maintenance.py``). Read and
written by ``core/schedule/sql_store.py``.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.db.sql.tables import TableNames

__all__ = ["build_schedules_table", "schedules_table_name"]


def schedules_table_name(names: TableNames) -> str:
    """``session_schedules`` for the default sessions table, ``{table}_schedules`` else
    (the naming rule of every table derived from the sessions table)."""
    return names._derived("schedules")


def build_schedules_table(names: TableNames) -> sa.Table:
    """The table object matching what migration 0007 creates."""
    name = schedules_table_name(names)
    return sa.Table(
        name,
        sa.MetaData(schema=names.schema),
        sa.Column("schedule_id", sa.Text, primary_key=True),
        sa.Column("session_id", sa.Text, nullable=False),
        sa.Column("owner_id", sa.Text),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text),
        sa.Column("input", sa.Text, nullable=False),
        sa.Column("tz", sa.Text, nullable=False),
        sa.Column("cron", sa.Text),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("rev", sa.BigInteger, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("nominal_at", sa.Double, nullable=False),
        sa.Column("due_at", sa.Double, nullable=False),
        sa.Column("claim_token", sa.Text, nullable=False),
        sa.Column("cancel_requested", sa.Boolean, nullable=False),
        sa.Column("last_error", sa.Text, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Index(f"ix_{name}_due", "due_at"),
        sa.Index(f"ix_{name}_session", "session_id"),
    )
