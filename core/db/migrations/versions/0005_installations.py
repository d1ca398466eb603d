"""Slack app installations (OAuth install flow): bots, installations, OAuth states.

One row per bot (workspace or org) and one per installing user, the newest install
replacing the older one; tokens are kept encrypted in ``secrets``. OAuth states are
one-time rows with an expiry. See ``core/db/sql/installation_tables.py``.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from core.db.sql.installation_tables import (
    InstallationTableNames,
    installation_columns,
    oauth_state_columns,
)

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    names = InstallationTableNames.for_store(context.config.attributes["table_names"])
    bot_columns, installation_cols = installation_columns()
    op.create_table(
        names.bots,
        *bot_columns,
        sa.PrimaryKeyConstraint("client_id", "enterprise_id", "team_id"),
        schema=names.schema,
    )
    op.create_table(
        names.installations,
        *installation_cols,
        sa.PrimaryKeyConstraint("client_id", "enterprise_id", "team_id", "user_id"),
        schema=names.schema,
    )
    op.create_table(names.oauth_states, *oauth_state_columns(), schema=names.schema)
    # the sweep of expired states reads them by expiry
    op.create_index(
        f"ix_{names.oauth_states}_expires", names.oauth_states, ["expires_at"], schema=names.schema
    )


def downgrade() -> None:
    names = InstallationTableNames.for_store(context.config.attributes["table_names"])
    op.drop_table(names.oauth_states, schema=names.schema)
    op.drop_table(names.installations, schema=names.schema)
    op.drop_table(names.bots, schema=names.schema)
