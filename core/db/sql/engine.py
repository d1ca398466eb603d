"""Engines for SQLite and PostgreSQL, and the translation of "cannot reach" errors.

SQLite: WAL journal and a busy timeout, so several processes can share one file;
transactions that write start with ``BEGIN IMMEDIATE`` (taking the write lock up
front), because a read-then-write transaction under WAL cannot upgrade its lock when
another process committed meanwhile. Run-lease transactions (``relaxed_writer``) commit
without waiting for the disk (SQLite ``synchronous=NORMAL``, PostgreSQL
``synchronous_commit=off``): a lease lost in a power cut is only an expired lease, and
fencing refuses any save under it. PostgreSQL: the psycopg 3 driver, connections
checked before use so a restarted server is picked up again. Statement parameters
(session state, user ids) are hidden from error messages, which end up in logs.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.pool import StaticPool
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from core.exceptions import StoreUnavailableError

_BEGIN_OPTION = "statebot_sqlite_begin"
_SYNC_OPTION = "statebot_sqlite_synchronous"
_RELAXED_OPTION = "statebot_relaxed_commit"
_SYNC_LEVELS = ("OFF", "NORMAL", "FULL", "EXTRA")

#: errors that mean "the database cannot be reached (right now)", not "the data is bad"
UNAVAILABLE_ERRORS = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
    sqlite3.OperationalError,
    OSError,
)


@contextlib.contextmanager
def unavailable_as_store_error(where: str) -> Iterator[None]:
    """Turn connection-level failures into StoreUnavailableError naming the database."""
    try:
        yield
    except UNAVAILABLE_ERRORS as exc:
        reason = getattr(exc, "orig", None) or exc
        raise StoreUnavailableError(
            f"database {where} is unavailable ({str(reason).strip()}); nothing was written"
        ) from exc


def sqlite_engines(
    path: Path | None, *, busy_timeout: float, synchronous: str
) -> tuple[sa.Engine, sa.Engine]:
    """(engine for reads, engine whose transactions begin IMMEDIATE) on one pool.

    ``path`` None is a private in-memory database: one connection shared by all
    threads (the store serializes access to it).
    """
    connect_args: dict[str, Any] = {"check_same_thread": False, "timeout": busy_timeout}
    if path is None:
        engine = sa.create_engine(
            "sqlite://", connect_args=connect_args, poolclass=StaticPool, hide_parameters=True
        )
    else:
        url = sa.URL.create("sqlite", database=str(path))
        engine = sa.create_engine(url, connect_args=connect_args, hide_parameters=True)
    if synchronous.upper() not in _SYNC_LEVELS:
        raise ValueError(f"synchronous={synchronous!r}: use OFF, NORMAL, FULL or EXTRA")

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, record: Any) -> None:
        # SQLAlchemy emits BEGIN itself (below); pysqlite must not start transactions
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # the busy timeout first: switching a new file to WAL takes a lock that another
        # connection opening it at the same moment must wait for, not fail on
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous.upper()}")
        cursor.close()
        record.info[_SYNC_OPTION] = synchronous.upper()

    @event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        options = conn.get_execution_options()
        level = synchronous.upper()
        if options.get(_RELAXED_OPTION) and _SYNC_LEVELS.index(level) > 1:
            level = "NORMAL"  # in WAL mode: durable at the next checkpoint, never corrupt
        info = conn.connection.info
        if info.get(_SYNC_OPTION) != level:  # set only when it changes: no cost in a row
            conn.exec_driver_sql(f"PRAGMA synchronous={level}")
            info[_SYNC_OPTION] = level
        conn.exec_driver_sql(f"BEGIN {options.get(_BEGIN_OPTION, '')}".strip())

    return engine, engine.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})


def relaxed_writer(writer: sa.Engine) -> sa.Engine:
    """``writer`` whose commits do not wait for the disk (run-lease transactions only)."""
    return writer.execution_options(**{_RELAXED_OPTION: True})


def postgres_url(db_url: str) -> sa.URL:
    """``postgresql://`` / ``postgres://`` URLs mapped to the psycopg 3 driver."""
    url = sa.make_url(db_url.replace("postgres://", "postgresql://", 1))
    if url.get_backend_name() != "postgresql":
        raise ValueError(f"not a PostgreSQL URL: {url.render_as_string(hide_password=True)}")
    if url.drivername != "postgresql+psycopg":
        url = url.set(drivername="postgresql+psycopg")
    return url


def postgres_engine(
    db_url: str,
    *,
    connect_timeout: int,
    pool_size: int,
    max_overflow: int = 10,
    pool_timeout: float = 30.0,
) -> sa.Engine:
    """An engine on psycopg 3 that re-checks pooled connections before use."""
    engine = sa.create_engine(
        postgres_url(db_url),
        pool_pre_ping=True,
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_timeout=pool_timeout,
        hide_parameters=True,  # error messages must never carry state values into logs
        connect_args={"connect_timeout": connect_timeout},
    )

    @event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        if conn.get_execution_options().get(_RELAXED_OPTION):
            conn.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")

    return engine


#: SQLite may answer "database is locked" at once, without waiting out its busy timeout
#: (e.g. while another connection switches a new file to WAL); the statement failed and
#: its transaction rolled back, so running the whole transaction again is safe
LOCKED_RETRY = Retrying(
    retry=retry_if_exception(
        lambda exc: isinstance(exc, sa.exc.OperationalError) and "database is locked" in str(exc)
    ),
    stop=stop_after_attempt(5),
    wait=wait_exponential(multiplier=0.02, max=0.5),
    reraise=True,
)
