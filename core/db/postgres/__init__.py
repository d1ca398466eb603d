"""PostgreSQL stores at Agno's paths: ``core.db.postgres.PostgresDb`` and ``AsyncPostgresDb``."""

from core.db.postgres.async_postgres import AsyncPostgresDb
from core.db.postgres.postgres import PostgresDb

__all__ = ["AsyncPostgresDb", "PostgresDb"]
