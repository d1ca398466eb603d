"""SqliteDb specifics: file handling, WAL, several processes on one file, Agno spellings."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.sqlite import SqliteDb, sqlite_path
from core.exceptions import StaleVersionError, StoreUnavailableError
from core.storage.sqlite import SqliteStorage

ROOT = Path(__file__).resolve().parents[2]

INCREMENTS = textwrap.dedent(
    """
    import asyncio, sys
    from core.db.base import StaleVersionError
    from core.db.sqlite import SqliteDb
    from core.db.codec import encode_delta as texts

    async def main(path: str, count: int) -> None:
        db = SqliteDb(db_file=path)
        done = 0
        while done < count:
            record = await db.aload("counter")
            try:
                await db.asave(
                    "counter",
                    expected_version=record.version,
                    changed=texts({"n": record.state["n"] + 1}),
                )
                done += 1
            except StaleVersionError:
                continue  # the other process saved first: reload and retry
        await db.aclose()

    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    """
)


async def test_parent_directories_are_created(tmp_path: Path) -> None:
    """SqliteDb(db_file="a/b/c.db") creates a/b and the file on first use."""
    db = SqliteDb(db_file=tmp_path / "a" / "b" / "c.db")
    try:
        await db.asave("s", expected_version=0, changed=texts({"x": 1}))
    finally:
        await db.aclose()
    assert (tmp_path / "a" / "b" / "c.db").is_file()


async def test_database_uses_wal_and_a_busy_timeout(sqlite_db: SqliteDb) -> None:
    """Connections run in WAL mode with a busy timeout, so processes can share the file."""
    with sqlite_db.connection() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar_one() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar_one() == 30_000


async def test_two_processes_share_one_file_without_losing_updates(tmp_path: Path) -> None:
    """Two OS processes incrementing one counter with version checks end at the exact sum."""
    path = tmp_path / "shared.db"
    db = SqliteDb(db_file=path)
    await db.asave("counter", expected_version=0, changed=texts({"n": 0}))
    procs = [
        subprocess.Popen([sys.executable, "-c", INCREMENTS, str(path), "15"], cwd=ROOT)
        for _ in range(2)
    ]
    codes = await asyncio.gather(*(asyncio.to_thread(p.wait, 60) for p in procs))
    record = await db.aload("counter")
    await db.aclose()
    assert codes == [0, 0]
    assert record is not None and (record.state["n"], record.version) == (30, 31)


def test_store_works_from_several_event_loops(tmp_path: Path) -> None:
    """One SqliteDb instance serves successive asyncio.run loops (the sync API's case)."""
    db = SqliteDb(db_file=tmp_path / "loops.db")
    asyncio.run(db.asave("s", expected_version=0, changed=texts({"n": 1})))
    record = asyncio.run(db.aload("s"))
    asyncio.run(db.aclose())
    assert record is not None and record.state == {"n": 1}


async def test_in_memory_sqlite_url_keeps_state_for_the_store(tmp_path: Path) -> None:
    """SqliteDb(db_url="sqlite://") is a private in-memory database that still versions."""
    db = SqliteDb(db_url="sqlite://")
    try:
        await db.asave("s", expected_version=0, changed=texts({"n": 1}))
        with pytest.raises(StaleVersionError):
            await db.asave("s", expected_version=0, changed=texts({"n": 2}))
        record = await db.aload("s")
        assert record is not None and record.state == {"n": 1}
    finally:
        await db.aclose()


@pytest.mark.parametrize(
    ("db_file", "db_url", "expected"),
    [
        ("tmp/agents.db", None, Path("tmp/agents.db")),
        (None, "sqlite:///tmp/agents.db", Path("tmp/agents.db")),
        (None, "sqlite:////abs/agents.db", Path("/abs/agents.db")),
        (None, "sqlite://", None),
        (":memory:", None, None),
        (None, None, Path("statebot.db")),
    ],
)
def test_sqlite_path_from_file_or_url(
    db_file: str | None, db_url: str | None, expected: Path | None
) -> None:
    """db_file and db_url name the same files; sqlite:// and :memory: are in-memory."""
    assert sqlite_path(db_file, db_url) == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"db_file": "a.db", "db_url": "sqlite:///a.db"}, "not both"),
        ({"db_url": "postgresql://host/db"}, "not a SQLite URL"),
        ({"db_file": "a.db", "session_table": "drop table;"}, "letters, digits"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs: dict[str, str], message: str) -> None:
    """Conflicting or malformed arguments raise ValueError before touching any file."""
    with pytest.raises(ValueError, match=message):
        SqliteDb(**kwargs)  # type: ignore[arg-type]


async def test_agno_sqlite_storage_spelling_is_a_sqlite_db(tmp_path: Path) -> None:
    """SqliteStorage(table_name=..., db_file=...) stores sessions in that table."""
    storage = SqliteStorage(table_name="chat_sessions", db_file=str(tmp_path / "chat.db"))
    try:
        await storage.asave("s", expected_version=0, changed=texts({"messages": []}))
        with storage.connection() as conn:
            rows = conn.exec_driver_sql("SELECT session_id FROM chat_sessions").all()
        assert [r[0] for r in rows] == ["s"]
        assert isinstance(storage, SqliteDb)
    finally:
        await storage.aclose()


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
async def test_history_is_trimmed_to_the_configured_limit(tmp_path: Path, kind: str) -> None:
    """With history_limit=3 only the three newest versions are kept."""
    db: BaseDb = (
        SqliteDb(db_file=tmp_path / "h.db", history_limit=3)
        if kind == "sqlite"
        else InMemoryDb(history_limit=3)
    )
    try:
        await db.asave("s", expected_version=0, changed=texts({"n": 0}))
        for n in range(1, 6):
            await db.asave("s", expected_version=n, changed=texts({"n": n}))
        assert [e.version for e in await db.ahistory("s")] == [6, 5, 4]
    finally:
        await db.aclose()


def test_a_locked_answer_is_retried_as_a_whole_transaction(tmp_path: Path) -> None:
    """SQLite's immediate "database is locked" is retried; other errors are not."""
    import sqlalchemy as sa

    db = SqliteDb(db_file=tmp_path / "r.db")
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise sa.exc.OperationalError("BEGIN", {}, Exception("database is locked"))
        return "ok"

    assert db._call(flaky) == "ok" and len(calls) == 3

    def broken() -> None:
        raise sa.exc.OperationalError("SELECT", {}, Exception("no such table: x"))

    with pytest.raises(StoreUnavailableError, match="no such table"):
        db._call(broken)
