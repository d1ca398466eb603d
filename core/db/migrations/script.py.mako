"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
Create Date: ${create_date}
"""

from __future__ import annotations

from alembic import context, op

from core.db.sql.tables import TableNames

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = ${repr(branch_labels)}
depends_on = ${repr(depends_on)}


def upgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    ${upgrades if upgrades else "del names"}


def downgrade() -> None:
    names: TableNames = context.config.attributes["table_names"]
    ${downgrades if downgrades else "del names"}
