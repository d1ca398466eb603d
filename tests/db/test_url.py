"""open_store: one URL names one backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.sqlite import SqliteDb
from core.db.url import open_store


async def test_sqlite_urls_and_bare_paths_open_sqlite(tmp_path: Path) -> None:
    """sqlite:///path and a bare path both open a SqliteDb on that file."""
    by_url = open_store(f"sqlite:///{tmp_path}/a.db")
    by_path = open_store(str(tmp_path / "b.db"))
    try:
        assert isinstance(by_url, SqliteDb) and by_url.db_file == tmp_path / "a.db"
        assert isinstance(by_path, SqliteDb) and by_path.db_file == tmp_path / "b.db"
    finally:
        await by_url.aclose()
        await by_path.aclose()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres@127.0.0.1:5432/test",
        "postgresql+psycopg://postgres@127.0.0.1:5432/test",
        "postgres://postgres@127.0.0.1:5432/test",
    ],
)
async def test_postgres_urls_open_postgres_on_psycopg(url: str) -> None:
    """Every PostgreSQL spelling opens a PostgresDb on the psycopg 3 driver (lazily)."""
    db = open_store(url)
    try:
        assert isinstance(db, PostgresDb)
        assert "postgresql+psycopg://" in repr(db)
    finally:
        await db.aclose()


def test_memory_url_opens_in_memory_store() -> None:
    """memory:// is the in-process store."""
    assert isinstance(open_store("memory://"), InMemoryDb)


@pytest.mark.parametrize(
    ("url", "kwargs", "message"),
    [
        ("mysql://host/db", {}, "unknown database URL scheme 'mysql'"),
        ("  ", {}, "empty database URL"),
        ("sqlite:///a.db", {"snapshot_to": "sqlite:///b.db"}, "only applies to redis"),
    ],
)
def test_bad_urls_are_clear_errors(url: str, kwargs: dict[str, str], message: str) -> None:
    """Unknown schemes, empty URLs and misplaced snapshot_to raise ValueError."""
    with pytest.raises(ValueError, match=message):
        open_store(url, **kwargs)


async def test_redis_url_opens_redis_snapshotting_to_the_durable_url(tmp_path: Path) -> None:
    """redis:// opens a RedisDb whose snapshot_to is the store named by snapshot_to."""
    from core.db.redis import RedisDb

    db = open_store(
        "redis://127.0.0.1:6379/0",
        snapshot_to=f"sqlite:///{tmp_path}/snap.db",
        run_snapshotter=False,
    )
    assert isinstance(db, RedisDb)
    try:
        assert isinstance(db.snapshot_to, SqliteDb)
        assert db.snapshot_to.db_file == tmp_path / "snap.db"
    finally:
        await db.aclose()
        if db.snapshot_to is not None:
            await db.snapshot_to.aclose()
