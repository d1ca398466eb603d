"""SqliteDb: the embedded durable store (one file, shareable by several processes)."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from core.db.cipher import StateCipher
from core.db.limits import StateLimits
from core.db.sql.engine import sqlite_engines
from core.db.sql.options import refuse_unsupported
from core.db.sql.store import SqlDb
from core.db.sql.tables import TableNames

DEFAULT_DB_FILE = "statebot.db"


class SqliteDb(SqlDb):
    """Sessions in a SQLite file: ``SqliteDb(db_file="tmp/agents.db")``.

    ``db_url`` takes a SQLAlchemy SQLite URL instead (``sqlite:///tmp/agents.db``;
    ``sqlite://`` is a private in-memory database). Parent directories of the file
    are created. ``session_table`` names the sessions table; history and memories
    get tables named after it.

    Runs of one session are serialized across store instances and processes by a
    lease in the file (``lock_ttl`` seconds, renewed by the live holder; a waiter gives
    up after ``lock_timeout`` seconds, None waits forever). A private in-memory
    database uses an in-process lock instead.

    ``cipher`` (a :class:`~core.db.cipher.StateCipher`) stores state values, data and
    history sealed (docs/encryption.md). ``id`` names the store (Agno's database id);
    Agno's other arguments (``db_engine``, ``memory_table``, …) are refused with a
    TypeError saying why (:mod:`core.db.sql.options`).
    """

    def __init__(
        self,
        db_file: str | Path | None = None,
        db_url: str | None = None,
        session_table: str | None = None,
        *,
        history_limit: int = 50,
        limits: StateLimits | None = None,
        busy_timeout: float = 30.0,
        synchronous: str = "FULL",
        lock_ttl: float = 30.0,
        lock_timeout: float | None = 60.0,
        cipher: StateCipher | None = None,
        id: str | None = None,
        **unsupported: object,
    ) -> None:
        refuse_unsupported(type(self).__name__, unsupported)
        path = sqlite_path(db_file, db_url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.db_file = path
        self.id = id or f"sqlite:{path if path is not None else ':memory:'}"
        engine, writer = sqlite_engines(path, busy_timeout=busy_timeout, synchronous=synchronous)
        super().__init__(
            engine,
            names=TableNames.for_session_table(session_table),
            writer=writer,
            history_limit=history_limit,
            limits=limits,
            serialize=path is None,
            lock_ttl=lock_ttl,
            lock_timeout=lock_timeout,
            cipher=cipher,
        )


def sqlite_path(db_file: str | Path | None, db_url: str | None) -> Path | None:
    """The database file named by ``db_file`` or ``db_url``; None for in-memory."""
    if db_file is not None and db_url is not None:
        raise ValueError("give SqliteDb either db_file or db_url, not both")
    if db_url is None:
        if str(db_file) == ":memory:":
            return None
        return Path(db_file if db_file is not None else DEFAULT_DB_FILE).expanduser()
    url = sa.make_url(db_url)
    if url.get_backend_name() != "sqlite":
        raise ValueError(f"not a SQLite URL: {db_url!r} (expected sqlite:///path/to/file.db)")
    if url.database in (None, "", ":memory:"):
        return None
    return Path(url.database).expanduser()
