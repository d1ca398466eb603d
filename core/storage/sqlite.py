"""Agno's older spelling: ``SqliteStorage(table_name=..., db_file=...)``, accepted as ``db=``."""

from __future__ import annotations

from pathlib import Path

from core.db.limits import StateLimits
from core.db.sqlite import SqliteDb


class SqliteStorage(SqliteDb):
    """A SqliteDb whose sessions table is ``table_name``."""

    def __init__(
        self,
        table_name: str = "agent_sessions",
        db_file: str | Path | None = None,
        db_url: str | None = None,
        *,
        history_limit: int = 50,
        limits: StateLimits | None = None,
    ) -> None:
        super().__init__(
            db_file=db_file,
            db_url=db_url,
            session_table=table_name,
            history_limit=history_limit,
            limits=limits,
        )
        self.table_name = table_name
