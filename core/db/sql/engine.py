"""Engines for SQLite and PostgreSQL, and the translation of "cannot reach" errors.

SQLite: WAL journal and a busy timeout, so several processes can share one file;
transactions that write start with ``BEGIN IMMEDIATE`` (taking the write lock up
front), because a read-then-write transaction under WAL cannot upgrade its lock when
another process committed meanwhile. PostgreSQL: the psycopg 3 driver, connections
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

from core.db.base import StoreUnavailableError

_BEGIN_OPTION = "statebot_sqlite_begin"

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
    if synchronous.upper() not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
        raise ValueError(f"synchronous={synchronous!r}: use OFF, NORMAL, FULL or EXTRA")

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # SQLAlchemy emits BEGIN itself (below); pysqlite must not start transactions
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cursor.execute(f"PRAGMA synchronous={synchronous.upper()}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: sa.Connection) -> None:
        mode = conn.get_execution_options().get(_BEGIN_OPTION, "")
        conn.exec_driver_sql(f"BEGIN {mode}".strip())

    return engine, engine.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})


def postgres_url(db_url: str) -> sa.URL:
    """``postgresql://`` / ``postgres://`` URLs mapped to the psycopg 3 driver."""
    url = sa.make_url(db_url.replace("postgres://", "postgresql://", 1))
    if url.get_backend_name() != "postgresql":
        raise ValueError(f"not a PostgreSQL URL: {url.render_as_string(hide_password=True)}")
    if url.drivername != "postgresql+psycopg":
        url = url.set(drivername="postgresql+psycopg")
    return url


def postgres_engine(db_url: str, *, connect_timeout: int, pool_size: int) -> sa.Engine:
    """An engine on psycopg 3 that re-checks pooled connections before use."""
    return sa.create_engine(
        postgres_url(db_url),
        pool_pre_ping=True,
        pool_size=pool_size,
        hide_parameters=True,  # error messages must never carry state values into logs
        connect_args={"connect_timeout": connect_timeout},
    )
