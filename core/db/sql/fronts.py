"""The fronts table (migration 0009): which Redis servers serve this durable store.

One row per (Redis address, key prefix), upserted with who started it and when; read
whole (a deployment has one or a few). Used through ``core/db/fronts.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from core.db.sql.store import SqlDb
from core.db.sql.tables import TableNames

__all__ = ["FrontRow", "build_fronts_table", "read_fronts", "record_front"]

#: (address, key prefix, seen by, seen at)
FrontRow = tuple[str, str, str, float]


def build_fronts_table(names: TableNames) -> sa.Table:
    """The table object matching what migration 0009 creates."""
    return sa.Table(
        names._derived("fronts"),
        sa.MetaData(schema=names.schema),
        sa.Column("address", sa.Text, primary_key=True),
        sa.Column("key_prefix", sa.Text, primary_key=True),
        sa.Column("seen_by", sa.Text, nullable=False),
        sa.Column("seen_at", sa.Double, nullable=False),
    )


async def record_front(db: SqlDb, row: FrontRow) -> None:
    """Insert the row, or refresh who saw it and when."""
    table = build_fronts_table(db.names)

    def upsert(conn: sa.Connection) -> None:
        insert = (postgresql if conn.dialect.name == "postgresql" else sqlite).insert
        address, prefix, seen_by, seen_at = row
        statement = insert(table).values(
            address=address, key_prefix=prefix, seen_by=seen_by, seen_at=seen_at
        )
        conn.execute(
            statement.on_conflict_do_update(
                index_elements=[table.c.address, table.c.key_prefix],
                set_={"seen_by": statement.excluded.seen_by, "seen_at": statement.excluded.seen_at},
            )
        )

    await db.atransact(db.writer, upsert)


async def read_fronts(db: SqlDb) -> list[FrontRow]:
    """Every recorded front, the most recently seen first."""
    table = build_fronts_table(db.names)

    def select(conn: sa.Connection) -> list[FrontRow]:
        query = sa.select(table.c.address, table.c.key_prefix, table.c.seen_by, table.c.seen_at)
        rows = conn.execute(query.order_by(table.c.seen_at.desc()))
        return [(r.address, r.key_prefix, r.seen_by, float(r.seen_at)) for r in rows]

    return await db.atransact(db.engine, select)
