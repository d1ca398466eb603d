"""The SQL implementation of the storage interface (SQLite and PostgreSQL)."""

from __future__ import annotations

from core.db.sql.store import SqlDb
from core.db.sql.tables import TableNames

__all__ = ["SqlDb", "TableNames"]
