"""The usage-counter table of budgets (migration 0008), named after the sessions table.

One row per (scope kind, scope id, UTC day): ``tokens`` and ``tool_calls`` spent that
day. Rows are only ever incremented (an upsert adding to the stored values), so two
processes recording at once both count. Read and written by
``core/governance/budgets/sql_usage.py``.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.db.sql.tables import TableNames


def usage_table_name(names: TableNames) -> str:
    """``session_usage`` for the default sessions table, ``{table}_usage`` else."""
    return names._derived("usage")


def build_usage_table(names: TableNames) -> sa.Table:
    """The table object matching what migration 0008 creates."""
    return sa.Table(
        usage_table_name(names),
        sa.MetaData(schema=names.schema),
        sa.Column("scope", sa.Text, primary_key=True),
        sa.Column("scope_id", sa.Text, primary_key=True),
        sa.Column("day", sa.Text, primary_key=True),
        sa.Column("tokens", sa.BigInteger, nullable=False),
        sa.Column("tool_calls", sa.BigInteger, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
    )
