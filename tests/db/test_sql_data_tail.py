"""PostgresDb appends a save's new runs and audit entries to ``data_tail`` instead of
writing the ``data`` column whole; every reader sees the text a whole write gives.
SqliteDb, where appending measured slower, writes the data whole."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from core.db import data_log
from core.db.cipher import MARKER, StateCipher
from core.db.codec import encode_delta as texts
from core.db.postgres import PostgresDb
from core.db.records import SessionRecord
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from core.governance.erasure import erase_user
from core.governance.rekey import rekey
from core.run.history import SessionData
from tests.db.test_data_log import LIMITS, Writer, _turns

K1 = Fernet.generate_key().decode()
K2 = Fernet.generate_key().decode()

Make = Callable[..., SqlDb]


@pytest.fixture
def make(postgres_schema: tuple[str, str]) -> Make:
    """PostgresDb stores over one schema (several may share it)."""
    url, schema = postgres_schema
    return lambda **kw: PostgresDb(db_url=url, schema=schema, limits=LIMITS, **kw)


@pytest.fixture
async def db(make: Make) -> AsyncIterator[SqlDb]:
    store = make()
    yield store
    await store.aclose()


def _raw(db: SqlDb, session_id: str = "s") -> tuple[str, str]:
    """The row's ``data`` and ``data_tail`` columns as stored."""
    s = db._tables.sessions
    with db._engine.connect() as conn:
        row = conn.execute(
            sa.select(s.c.data, s.c.data_tail).where(s.c.session_id == session_id)
        ).one()
    return row.data, row.data_tail


async def test_saves_append_to_the_tail_and_read_back_whole(db: SqlDb, make: Make) -> None:
    writer = Writer()
    await _turns(db, writer, 0, 5)
    before, tail_before = _raw(db)
    text = await _turns(db, writer, 5, 6)
    data, tail = _raw(db)
    assert data_log.is_log(data) and data == before  # the data column left alone
    assert tail.startswith(tail_before + "\n")
    assert len(tail) - len(tail_before) < len(text) / 2  # the save's lines, not the data
    record = await db.aload("s")
    assert record is not None and record.data == text
    other = make()
    assert (await other.aload("s")).data == text  # type: ignore[union-attr]
    await other.aclose()


async def test_data_stored_whole_is_written_anew_by_a_save_meant_to_append(db: SqlDb) -> None:
    """A row whose data is one JSON text (before this schema, or a snapshot) is never
    appended to: the save sees it in its transaction and writes the log whole."""
    writer = Writer()
    await _turns(db, writer, 0, 2)
    whole = (await db.aload("s")).data  # type: ignore[union-attr]
    s = db._tables.sessions
    with db._engine.begin() as conn:  # the layout of before: the text whole, no tail
        conn.execute(sa.update(s).values(data=whole, data_tail="", version=2))
    text, parts = writer.turn(2)
    assert parts.append is not None
    await db.asave("s", expected_version=2, changed=texts({"n": 2}), data=text, data_parts=parts)
    data, tail = _raw(db)
    assert data_log.is_log(data) and tail == ""
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]


async def test_a_snapshot_replaces_data_and_tail(db: SqlDb) -> None:
    writer = Writer()
    await _turns(db, writer, 0, 5)
    assert _raw(db)[1]
    snap = SessionRecord.from_state("s", {"a": 1}, 9, data='{"name":"standup","runs":[]}')
    assert await db.aupsert_snapshot(snap)
    assert _raw(db) == ('{"name":"standup","runs":[]}', "")
    assert (await db.aupsert_snapshots([SessionRecord.from_state("s", {"a": 2}, 10)])) == [True]
    assert _raw(db)[1] == ""


async def test_with_state_keys_the_data_is_sealed_whole(make: Make) -> None:
    """A sealed log would be opened line by line on every load (a SQL store reads the
    row each turn), which costs more than appending saves: with keys it is written whole."""
    db = make(cipher=StateCipher([K1]))
    text = await _turns(db, Writer(), 0, 6, words="secret-words")
    data, tail = _raw(db)
    assert tail == "" and data.startswith(MARKER) and "secret-words" not in data
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]
    keyless = make()
    with pytest.raises(Exception, match="state keys"):
        await keyless.aload("s")
    await keyless.aclose()
    await db.aclose()


async def test_rekey_seals_a_plaintext_log_and_its_tail(make: Make) -> None:
    """Keys added to a store that appended without them: rekey seals every live line
    under the new key and folds the tail in; the data reads back the same."""
    old = make()
    text = await _turns(old, Writer(), 0, 6)
    assert _raw(old)[1]
    await old.aclose()
    cipher = StateCipher([K2])
    db = make(cipher=cipher)
    report = await rekey(db)
    assert not report.failed and report.rewritten
    data, tail = _raw(db)
    assert tail == "" and data == data_log.compacted(data, "s")
    assert all(cipher.is_current(line[1:]) for line in data.split("\n"))
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]
    await db.aclose()


async def test_erasure_finds_a_user_named_only_in_the_tail(db: SqlDb) -> None:
    """The user's runs were appended, never written whole: erasure still finds them,
    and writes the data anew without them."""
    writer = Writer()
    await _turns(db, writer, 0, 3, user="ana")
    await _turns(db, writer, 3, 5, user="bo-the-erased")
    data, tail = _raw(db)
    assert "bo-the-erased" in tail and "bo-the-erased" not in data
    await erase_user(db, "bo-the-erased")
    data, tail = _raw(db)
    assert "bo-the-erased" not in data + tail
    record = await db.aload("s")
    assert record is not None
    assert "bo-the-erased" not in [r.user_id for r in SessionData.decode(record.data).runs]


async def test_sqlite_writes_the_data_whole(tmp_path: Path) -> None:
    """SQLite rewrites the row on any update: appending measured slower, so it never does."""
    db = SqliteDb(db_file=tmp_path / "state.db", limits=LIMITS)
    text = await _turns(db, Writer(), 0, 6)
    assert _raw(db) == (text, "")
    assert (await db.aload("s")).data == text  # type: ignore[union-attr]
    await db.aclose()
