"""A database that cannot be reached is a clear StoreUnavailableError; nothing is lost."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from core.db.codec import encode_delta as texts
from core.db.postgres import PostgresDb
from core.db.sqlite import SqliteDb
from core.exceptions import StoreUnavailableError


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_postgres_on_a_closed_port_is_unavailable() -> None:
    """Loads and saves against a server that is not there raise StoreUnavailableError."""
    db = PostgresDb(db_url=f"postgresql://postgres@127.0.0.1:{_closed_port()}/test")
    try:
        with pytest.raises(StoreUnavailableError, match=r"127\.0\.0\.1.*unavailable"):
            await db.aload("s")
        with pytest.raises(StoreUnavailableError, match="nothing was written"):
            await db.asave("s", expected_version=0, changed=texts({"a": 1}))
    finally:
        await db.aclose()


async def test_sqlite_file_that_cannot_be_opened_is_unavailable(tmp_path: Path) -> None:
    """A database path that is a directory gives StoreUnavailableError, not a crash."""
    (tmp_path / "db").mkdir()
    db = SqliteDb(db_file=tmp_path / "db")
    try:
        with pytest.raises(StoreUnavailableError):
            await db.asave("s", expected_version=0, changed=texts({"a": 1}))
    finally:
        await db.aclose()


async def test_postgres_comes_back_after_its_connection_dies(
    postgres_schema: tuple[str, str],
) -> None:
    """A pooled connection killed by the server is replaced on the next call, state intact."""
    url, schema = postgres_schema
    db = PostgresDb(db_url=url, schema=schema, pool_size=1)
    try:
        await db.asave("s", expected_version=0, changed=texts({"a": 1}))
        with db.connection() as conn:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        killer = PostgresDb(db_url=url, schema=schema)
        try:
            with killer.connection() as conn:
                # only this store's own pooled connection, as a server restart would
                conn.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        finally:
            await killer.aclose()
        record = await db.aload("s")
        assert record is not None and record.state == {"a": 1}
    finally:
        await db.aclose()
