"""Agno's older spelling: ``PostgresStorage(table_name=..., db_url=..., schema=...)``."""

from __future__ import annotations

from core.db.limits import StateLimits
from core.db.postgres import PostgresDb


class PostgresStorage(PostgresDb):
    """A PostgresDb whose sessions table is ``table_name``."""

    def __init__(
        self,
        table_name: str,
        db_url: str,
        schema: str | None = None,
        *,
        history_limit: int = 50,
        limits: StateLimits | None = None,
    ) -> None:
        super().__init__(db_url, schema, table_name, history_limit=history_limit, limits=limits)
        self.table_name = table_name
