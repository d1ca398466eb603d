"""SQLite stores at Agno's paths: ``core.db.sqlite.SqliteDb`` and ``AsyncSqliteDb``."""

from core.db.sqlite.async_sqlite import AsyncSqliteDb
from core.db.sqlite.sqlite import DEFAULT_DB_FILE, SqliteDb, sqlite_path

__all__ = ["DEFAULT_DB_FILE", "AsyncSqliteDb", "SqliteDb", "sqlite_path"]
