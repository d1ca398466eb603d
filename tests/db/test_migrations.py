"""Schema migrations: a fresh database reaches the head revision, re-opening is a no-op."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from core.db.codec import encode_delta as texts
from core.db.postgres import PostgresDb
from core.db.sql import migrate
from core.db.sql.migrate import current_revision, head_revision, upgrade_to_head
from core.db.sql.tables import TableNames
from core.db.sqlite import SqliteDb
from core.exceptions import StoreError
from core.storage.sqlite import SqliteStorage


async def test_fresh_sqlite_database_gets_head_revision(tmp_path: Path) -> None:
    """First use of a new file creates the tables at the newest revision."""
    db = SqliteDb(db_file=tmp_path / "fresh.db")
    try:
        assert await db.aload("s") is None
        with db.connection() as conn:
            assert current_revision(conn, TableNames.for_session_table(None)) == head_revision()
            tables = set(sa.inspect(conn).get_table_names())
        assert {"sessions", "session_history", "user_memories", "alembic_version"} <= tables
        assert {"session_leases", "session_lease_waiters"} <= tables
    finally:
        await db.aclose()


async def test_named_table_set_gets_its_own_lease_tables(tmp_path: Path) -> None:
    """session_table="x" puts its run leases in x_leases and x_lease_waiters."""
    db = SqliteStorage(table_name="x", db_file=tmp_path / "named.db")
    try:
        async with db.session_lock("s", timeout=1) as lease:
            assert lease.token
        with db.connection() as conn:
            tables = set(sa.inspect(conn).get_table_names())
        assert {"x_leases", "x_lease_waiters"} <= tables
        assert "session_leases" not in tables
    finally:
        await db.aclose()


async def test_reopening_is_idempotent_and_keeps_data(tmp_path: Path) -> None:
    """A second store on a migrated file runs no migration and sees the saved state."""
    first = SqliteDb(db_file=tmp_path / "state.db")
    await first.asave("s", expected_version=0, changed=texts({"a": 1}))
    await first.aclose()
    second = SqliteDb(db_file=tmp_path / "state.db")
    try:
        with second.connection() as conn, conn.begin():
            assert upgrade_to_head(conn, TableNames.for_session_table(None)) is False
        record = await second.aload("s")
        assert record is not None and record.state == {"a": 1}
    finally:
        await second.aclose()


async def test_named_table_sets_are_migrated_independently(tmp_path: Path) -> None:
    """Two table names in one file get separate tables, each at the head revision."""
    path = tmp_path / "shared.db"
    default, agno = SqliteDb(db_file=path), SqliteStorage(table_name="agent_sessions", db_file=path)
    try:
        await default.asave("s", expected_version=0, changed=texts({"who": "default"}))
        await agno.asave("s", expected_version=0, changed=texts({"who": "agno"}))
        stored_default, stored_agno = await default.aload("s"), await agno.aload("s")
        assert stored_default is not None and stored_default.state == {"who": "default"}
        assert stored_agno is not None and stored_agno.state == {"who": "agno"}
        with agno.connection() as conn:
            names = TableNames.for_session_table("agent_sessions")
            assert current_revision(conn, names) == head_revision()
            assert names.history in sa.inspect(conn).get_table_names()
    finally:
        await default.aclose()
        await agno.aclose()


async def test_postgres_schema_holds_tables_and_revision(postgres_schema: tuple[str, str]) -> None:
    """PostgresDb(schema=...) creates its tables and version table inside that schema."""
    url, schema = postgres_schema
    db = PostgresDb(db_url=url, schema=schema)
    try:
        await db.asave("s", expected_version=0, changed=texts({"a": 1}))
        with db.connection() as conn:
            names = TableNames.for_session_table(None, schema)
            assert current_revision(conn, names) == head_revision()
            tables = set(sa.inspect(conn).get_table_names(schema=schema))
        assert {"sessions", "session_history", "user_memories", "alembic_version"} <= tables
    finally:
        await db.aclose()
    again = PostgresDb(db_url=url.replace("postgresql+psycopg://", "postgresql://"), schema=schema)
    try:
        record = await again.aload("s")
        assert record is not None and record.state == {"a": 1}
    finally:
        await again.aclose()


async def test_stores_migrating_at_once_on_their_threads_do_not_mix(tmp_path: Path) -> None:
    """Alembic runs scripts through one global context: stores migrating new databases at
    the same moment (each on its worker thread) must not run each other's steps."""
    for attempt in range(3):
        stores = [SqliteDb(db_file=tmp_path / f"db-{attempt}-{i}.db") for i in range(4)]
        try:
            await asyncio.gather(*(store.aping() for store in stores))
            for store in stores:
                await store.asave("s1", expected_version=0, changed=texts({"n": 1}))
                assert (await store.aload("s1")) is not None
        finally:
            for store in stores:
                await store.aclose()


def test_a_database_migrated_by_newer_code_is_refused_in_one_line(tmp_path: Path) -> None:
    """Code older than the tables (a rollback after a newer version migrated them) says
    so, naming both revisions, and changes nothing."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'newer.db'}")
    names = TableNames.for_session_table(None)
    with engine.begin() as conn:
        upgrade_to_head(conn, names)
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0999'"))
    with engine.begin() as conn, pytest.raises(StoreError) as caught:
        upgrade_to_head(conn, names)
    message = str(caught.value)
    assert "\n" not in message and "0999" in message and head_revision() in message
    with engine.connect() as conn:
        assert current_revision(conn, names) == "0999"
    engine.dispose()


async def test_data_stored_at_0010_reads_the_same_after_0011(tmp_path: Path) -> None:
    """A row written before ``data_tail`` existed is migrated with an empty tail and
    reads back as it was."""
    path = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    names = TableNames.for_session_table(None)
    config = migrate._config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        config.attributes["table_names"] = names
        command.upgrade(config, "0010")
        conn.execute(
            sa.text(
                "INSERT INTO sessions (session_id, kind, state, version, created_at, "
                "updated_at, save_id, data, epoch) VALUES ('s', 'agent', :state, 3, 1, "
                "1, 'x', :data, '')"
            ),
            {"state": '{"a":1}', "data": '{"name":"old","runs":[]}'},
        )
    engine.dispose()
    db = SqliteDb(db_file=path)
    try:
        record = await db.aload("s")
        assert record is not None and record.version == 3
        assert record.data == '{"name":"old","runs":[]}' and record.state == {"a": 1}
        with db.connection() as conn:
            assert current_revision(conn, names) == head_revision()
    finally:
        await db.aclose()
