"""PostgresDb: the durable store beyond one machine (PostgreSQL through psycopg 3)."""

from __future__ import annotations

from core.db.cipher import StateCipher
from core.db.limits import StateLimits
from core.db.sql.engine import postgres_engine
from core.db.sql.options import refuse_unsupported
from core.db.sql.store import SqlDb
from core.db.sql.tables import TableNames


class PostgresDb(SqlDb):
    """Sessions in PostgreSQL: ``PostgresDb(db_url="postgresql://user@host/db")``.

    Every ``postgresql`` URL uses the psycopg 3 driver (Agno's async URLs, such as
    ``postgresql+psycopg_async://``, too: blocking calls run in worker threads).
    ``schema`` (Agno's ``db_schema``; give one of the two) puts the tables (and their
    migration record) in that schema, created when missing.

    Runs of one session are serialized across store instances and processes by a
    lease row (``lock_ttl`` seconds, renewed by the live holder; a waiter gives up
    after ``lock_timeout`` seconds, None waits forever). Waiters hold no connection
    while they wait, so the pool (``pool_size`` + ``max_overflow`` connections, a
    checkout waits ``pool_timeout`` seconds) only serves the running statements.

    ``cipher`` (a :class:`~core.db.cipher.StateCipher`) stores state values, data and
    history sealed (docs/encryption.md). ``id`` names the store (Agno's database id);
    Agno's other arguments (``db_engine``, ``memory_table``, …) are refused with a
    TypeError saying why (:mod:`core.db.sql.options`).
    """

    def __init__(
        self,
        db_url: str | None = None,
        schema: str | None = None,
        session_table: str | None = None,
        *,
        db_schema: str | None = None,
        history_limit: int = 50,
        limits: StateLimits | None = None,
        connect_timeout: int = 5,
        pool_size: int = 10,
        max_overflow: int = 10,
        pool_timeout: float = 30.0,
        lock_ttl: float = 30.0,
        lock_timeout: float | None = 60.0,
        cipher: StateCipher | None = None,
        id: str | None = None,
        **unsupported: object,
    ) -> None:
        refuse_unsupported(type(self).__name__, unsupported)
        if db_url is None:
            raise TypeError(f'{type(self).__name__} needs db_url="postgresql://user@host/db"')
        if schema is not None and db_schema is not None and schema != db_schema:
            raise TypeError(f"{type(self).__name__}: give schema or db_schema, not both")
        schema = schema if schema is not None else db_schema
        engine = postgres_engine(
            db_url,
            connect_timeout=connect_timeout,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_timeout=pool_timeout,
        )
        self.schema = schema
        self.id = id or f"postgres:{engine.url.render_as_string(hide_password=True)}:{schema}"
        super().__init__(
            engine,
            names=TableNames.for_session_table(session_table, schema),
            history_limit=history_limit,
            limits=limits,
            lock_ttl=lock_ttl,
            lock_timeout=lock_timeout,
            cipher=cipher,
        )
