"""The durable schema of chat-app installations (Slack's OAuth install flow).

Table names derive from the store's sessions table like the lease tables do, so
several stores sharing one database keep separate installations. Lookup columns are
plain; every secret (bot, user and refresh tokens, webhook URL) lives only in the
``secrets`` column, encrypted by the caller; ``key_id`` names the key that encrypted
it, so a key rotation finds the rows still under an old key. Enterprise and team ids
are ``""`` when absent, so the unique keys hold (NULLs never compare equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from core.db.sql.tables import DEFAULT_SESSION_TABLE, TableNames


@dataclass(frozen=True, slots=True)
class InstallationTableNames:
    """Names of the installation tables that belong to one store."""

    bots: str
    installations: str
    oauth_states: str
    schema: str | None = None

    @classmethod
    def for_store(cls, names: TableNames) -> InstallationTableNames:
        """``slack_*`` for the default sessions table, ``{table}_slack_*`` otherwise."""
        prefix = "" if names.sessions == DEFAULT_SESSION_TABLE else f"{names.sessions}_"
        return cls(
            f"{prefix}slack_bots",
            f"{prefix}slack_installations",
            f"{prefix}slack_oauth_states",
            names.schema,
        )


@dataclass(frozen=True, slots=True)
class InstallationTables:
    """Core table objects bound to one set of names."""

    bots: sa.Table
    installations: sa.Table
    oauth_states: sa.Table


def _common_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("client_id", sa.Text, nullable=False),
        sa.Column("app_id", sa.Text),
        sa.Column("enterprise_id", sa.Text, nullable=False),
        sa.Column("enterprise_name", sa.Text),
        sa.Column("team_id", sa.Text, nullable=False),
        sa.Column("team_name", sa.Text),
        sa.Column("is_enterprise_install", sa.Boolean, nullable=False),
        sa.Column("bot_id", sa.Text),
        sa.Column("bot_user_id", sa.Text),
        sa.Column("bot_scopes", sa.Text),
        sa.Column("bot_token_expires_at", sa.Double),
        sa.Column("installed_at", sa.Double, nullable=False),
        sa.Column("key_id", sa.Text, nullable=False),
        sa.Column("secrets", sa.Text, nullable=False),
    ]


def installation_columns() -> tuple[list[sa.Column[Any]], list[sa.Column[Any]]]:
    """(bot columns, installation columns), fresh objects for one table each."""
    bots = _common_columns()
    installations: list[sa.Column[Any]] = [
        *_common_columns(),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("user_scopes", sa.Text),
        sa.Column("user_token_expires_at", sa.Double),
    ]
    return bots, installations


def oauth_state_columns() -> list[sa.Column[Any]]:
    """One row per issued OAuth state; consumed (deleted) on first use."""
    return [
        sa.Column("state", sa.Text, primary_key=True),
        sa.Column("expires_at", sa.Double, nullable=False),
    ]


def build_installation_tables(names: InstallationTableNames) -> InstallationTables:
    """Table objects matching the schema migration 0005 creates."""
    metadata = sa.MetaData(schema=names.schema)
    bot_columns, installation_cols = installation_columns()
    bots = sa.Table(
        names.bots,
        metadata,
        *bot_columns,
        sa.PrimaryKeyConstraint("client_id", "enterprise_id", "team_id"),
    )
    installations = sa.Table(
        names.installations,
        metadata,
        *installation_cols,
        sa.PrimaryKeyConstraint("client_id", "enterprise_id", "team_id", "user_id"),
    )
    states = sa.Table(names.oauth_states, metadata, *oauth_state_columns())
    return InstallationTables(bots, installations, states)
