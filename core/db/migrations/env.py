"""Alembic environment: migrates the tables of one store on the connection it passes.

The store hands over an open connection (already in a transaction that serializes
concurrent migrations) and its :class:`~core.db.sql.tables.TableNames` through
``config.attributes``; revision scripts read the names from there, so one set of
scripts serves every table prefix and PostgreSQL schema.
"""

from __future__ import annotations

from alembic import context

from core.db.sql.tables import TableNames

config = context.config
names: TableNames = config.attributes["table_names"]
connection = config.attributes["connection"]

context.configure(
    connection=connection,
    target_metadata=None,
    version_table=names.version,
    version_table_schema=names.schema,
)
with context.begin_transaction():
    context.run_migrations()
