"""PostgresDb: the durable store beyond one machine (PostgreSQL through psycopg 3)."""

from __future__ import annotations

from core.db.cipher import StateCipher
from core.db.limits import StateLimits
from core.db.sql.engine import postgres_engine
from core.db.sql.store import SqlDb
from core.db.sql.tables import TableNames


class PostgresDb(SqlDb):
    """Sessions in PostgreSQL: ``PostgresDb(db_url="postgresql://user@host/db")``.

    Plain ``postgresql://`` URLs use the psycopg 3 driver. ``schema`` puts the tables
    (and their migration record) in that schema, created when missing.

    Runs of one session are serialized across store instances and processes by a
    lease row (``lock_ttl`` seconds, renewed by the live holder; a waiter gives up
    after ``lock_timeout`` seconds, None waits forever). Waiters hold no connection
    while they wait, so the pool (``pool_size`` + ``max_overflow`` connections, a
    checkout waits ``pool_timeout`` seconds) only serves the running statements.

    ``cipher`` (a :class:`~core.db.cipher.StateCipher`) stores state values, data and
    history sealed (docs/encryption.md).
    """

    def __init__(
        self,
        db_url: str,
        schema: str | None = None,
        session_table: str | None = None,
        *,
        history_limit: int = 50,
        limits: StateLimits | None = None,
        connect_timeout: int = 5,
        pool_size: int = 10,
        max_overflow: int = 10,
        pool_timeout: float = 30.0,
        lock_ttl: float = 30.0,
        lock_timeout: float | None = 60.0,
        cipher: StateCipher | None = None,
    ) -> None:
        engine = postgres_engine(
            db_url,
            connect_timeout=connect_timeout,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_timeout=pool_timeout,
        )
        self.schema = schema
        super().__init__(
            engine,
            names=TableNames.for_session_table(session_table, schema),
            history_limit=history_limit,
            limits=limits,
            lock_ttl=lock_ttl,
            lock_timeout=lock_timeout,
            cipher=cipher,
        )
