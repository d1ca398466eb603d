"""Migration 0007: the schedules table beside the sessions table, and back."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic import command

from core.db.sql.migrate import _config
from core.db.sql.schedule_tables import schedules_table_name
from core.db.sql.tables import TableNames
from core.db.sqlite import SqliteDb


async def test_schedules_table_is_named_after_the_sessions_table(tmp_path: Path) -> None:
    """session_schedules by default, x_schedules for table x, each with its indexes."""
    default = SqliteDb(db_file=tmp_path / "a.db")
    named = SqliteDb(db_file=tmp_path / "a.db", session_table="x")
    try:
        for db, expected in ((default, "session_schedules"), (named, "x_schedules")):
            with db.connection() as conn:
                inspector = sa.inspect(conn)
                assert expected in inspector.get_table_names()
                indexes = {ix["name"] for ix in inspector.get_indexes(expected)}
                assert indexes == {f"ix_{expected}_due", f"ix_{expected}_session"}
    finally:
        await default.aclose()
        await named.aclose()


async def test_downgrade_drops_only_the_schedules_table(tmp_path: Path) -> None:
    """Downgrading 0007 removes the schedules table and keeps the sessions."""
    db = SqliteDb(db_file=tmp_path / "b.db")
    names = TableNames.for_session_table(None)
    try:
        with db.connection():
            pass  # migrated to head
        with db._writer.begin() as conn:
            config = _config()
            config.attributes["connection"] = conn
            config.attributes["table_names"] = names
            command.downgrade(config, "0006")
            tables = set(sa.inspect(conn).get_table_names())
        assert schedules_table_name(names) not in tables
        assert "sessions" in tables
    finally:
        await db.aclose()
