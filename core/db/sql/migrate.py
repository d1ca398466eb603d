"""Bring a store's tables to the newest schema revision (Alembic, run in-process)."""

from __future__ import annotations

import functools
import threading
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError

from core.db.sql.tables import TableNames
from core.exceptions import StoreError

SCRIPT_LOCATION = Path(__file__).resolve().parent.parent / "migrations"


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    return config


@functools.cache
def head_revision() -> str:
    """The newest revision shipped with this package."""
    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships revisions
        raise RuntimeError(f"no migrations found in {SCRIPT_LOCATION}")
    return head


def current_revision(conn: sa.Connection, names: TableNames) -> str | None:
    """The revision the tables are at, None for a database never migrated."""
    context = MigrationContext.configure(
        conn, opts={"version_table": names.version, "version_table_schema": names.schema}
    )
    return context.get_current_revision()


def _known(revision: str) -> bool:
    """Whether ``revision`` is one of the migrations shipped with this package."""
    try:
        return ScriptDirectory.from_config(_config()).get_revision(revision) is not None
    except CommandError:  # Alembic's word for "no such revision" here
        return False


#: Alembic runs migration scripts through one global ``context`` proxy, so two threads
#: migrating at once (two store objects over one database, each on its worker thread)
#: would run each other's steps on the wrong connection: one migration at a time per process
_ALEMBIC_LOCK = threading.Lock()


def upgrade_to_head(conn: sa.Connection, names: TableNames) -> bool:
    """Migrate on ``conn`` (inside the caller's transaction); True when anything ran.

    StoreError, changing nothing, when the tables are at a revision this code does not
    ship: newer code migrated them, and this older code cannot read what it writes.
    """
    with _ALEMBIC_LOCK:
        current = current_revision(conn, names)
        if current == head_revision():
            return False
        if current is not None and not _known(current):
            raise StoreError(
                f"the {names.sessions!r} tables are at schema revision {current}, which "
                f"this version of Statebot does not know (its newest is {head_revision()}): "
                "a newer version migrated them; run that version or a later one"
            )
        config = _config()
        config.attributes["connection"] = conn
        config.attributes["table_names"] = names
        command.upgrade(config, "head")
        return True


def migrate(conn: sa.Connection, names: TableNames) -> bool:
    """Migrate the tables of ``names`` to head inside ``conn``'s transaction, serialized.

    Every store sharing these tables (sessions, schedules, Slack installations) calls
    this, so processes migrating at once take turns: PostgreSQL by a transaction-scoped
    advisory lock keyed by schema and sessions table (its schema is created first);
    SQLite's ``BEGIN IMMEDIATE`` already serializes.
    """
    if conn.dialect.name == "postgresql":
        key = f"statebot:{names.schema}:{names.sessions}"
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key})
        if names.schema:
            schema = conn.dialect.identifier_preparer.quote_schema(names.schema)
            conn.execute(sa.text(f"CREATE SCHEMA IF NOT EXISTS {schema}"))
    return upgrade_to_head(conn, names)
