"""The Redis incarnation that last read each session back: snapshots from others refused.

``epoch`` holds the run id of the Redis process that last read the session back from
this store (``aclaim``: after a restart, a flush or a failover), or the one a new row's
snapshot was read from. A snapshot read from another incarnation is refused once the
new one has claimed the session, so a pass that read before a Redis restart cannot
write a version the new incarnation reuses for other content. Rows written before this
revision get "" (no claim: only the version guards them, as before).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.tables import TableNames

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    with op.batch_alter_table(names.sessions, schema=names.schema) as batch:
        batch.add_column(sa.Column("epoch", sa.Text, nullable=False, server_default=""))


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    with op.batch_alter_table(names.sessions, schema=names.schema) as batch:
        batch.drop_column("epoch")
