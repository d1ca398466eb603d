"""The batched snapshot upsert: one transaction per batch, one outcome per session."""

from __future__ import annotations

import asyncio
import functools
import secrets
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from core.db.postgres import PostgresDb
from core.db.records import SessionRecord
from core.db.sql.snapshots import Outcome, upsert_snapshots
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from core.exceptions import InvalidIdError, VersionConflictError

LONG_ID = "slack:T1:C1:" + secrets.token_hex(1500)


@pytest.fixture(params=["postgres", "sqlite"])
async def sql_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SqlDb]:
    """A fresh PostgresDb or SqliteDb keeping 3 versions of history."""
    db: SqlDb
    if request.param == "postgres":
        url, schema = request.getfixturevalue("postgres_schema")
        db = PostgresDb(db_url=url, schema=schema, history_limit=3)
    else:
        db = SqliteDb(db_file=tmp_path / "state.db", history_limit=3)
    try:
        yield db
    finally:
        await db.aclose()


async def write(db: SqlDb, records: Sequence[SessionRecord]) -> list[Outcome]:
    """The store's batched snapshot upsert."""
    call = functools.partial(
        upsert_snapshots,
        db._writer,
        db._tables,
        records,
        history_limit=db.history_limit,
        limits=db.limits,
        where=db._where,
    )
    return await db._run(call)


def snap(session_id: str, n: int, version: int = 1, save: str = "") -> SessionRecord:
    """A snapshot record whose state is ``{"n": n}``."""
    return SessionRecord.from_state(
        session_id, {"n": n, "note": "ünïcode"}, version, save_id=save or f"save-{n}"
    )


async def test_a_batch_writes_every_session_with_its_history(sql_db: SqlDb) -> None:
    """Every record of the batch is stored, with a history row for its version."""
    records = [snap(f"s{i}", i, version=i + 1) for i in range(300)]
    assert await write(sql_db, records) == [True] * 300
    stored = await sql_db.aload_many(f"s{i}" for i in range(300))
    assert {sid: (r.state, r.version) for sid, r in stored.items()} == {
        f"s{i}": ({"n": i, "note": "ünïcode"}, i + 1) for i in range(300)
    }
    [entry] = await sql_db.ahistory("s7")
    assert entry.version == 8 and entry.state == {"n": 7, "note": "ünïcode"}


async def test_the_same_batch_again_is_a_no_op(sql_db: SqlDb) -> None:
    """Replaying a committed batch (a crash before the cleanup) writes nothing twice."""
    records = [snap(f"s{i}", i) for i in range(5)]
    await write(sql_db, records)
    assert await write(sql_db, records) == [False] * 5
    assert len(await sql_db.ahistory("s3")) == 1


async def test_older_versions_are_skipped_and_newer_ones_replace(sql_db: SqlDb) -> None:
    """The guard is per record: older is a no-op, newer replaces, in the same batch."""
    await write(sql_db, [snap("a", 1, version=5), snap("b", 1, version=5)])
    outcomes = await write(sql_db, [snap("a", 2, version=4), snap("b", 3, version=6)])
    assert outcomes == [False, True]
    a, b = await sql_db.aload("a"), await sql_db.aload("b")
    assert a is not None and a.state["n"] == 1 and a.version == 5
    assert b is not None and b.state["n"] == 3 and b.version == 6


async def test_a_conflict_and_a_bad_id_stay_in_their_slots(sql_db: SqlDb) -> None:
    """Same version from another save, an id with NUL, an overlong id: only they fail."""
    await write(sql_db, [snap("clash", 1, version=2, save="first")])
    batch = [
        snap("good-1", 1),
        snap("clash", 2, version=2, save="second"),
        snap("nul\x00id", 3),
        snap(LONG_ID, 4),
        snap("good-2", 5),
    ]
    outcomes = await write(sql_db, batch)
    assert outcomes[0] is True and outcomes[4] is True
    assert isinstance(outcomes[1], VersionConflictError)
    assert isinstance(outcomes[2], InvalidIdError) and "NUL" in str(outcomes[2])
    assert isinstance(outcomes[3], InvalidIdError)
    clash = await sql_db.aload("clash")
    assert clash is not None and clash.state["n"] == 1 and clash.save_id == "first"
    assert set(await sql_db.aload_many(["good-1", "good-2", LONG_ID])) == {"good-1", "good-2"}


async def test_one_session_twice_in_a_batch_is_written_in_order(sql_db: SqlDb) -> None:
    """Two versions of one session in one batch: both written, the newer one wins."""
    outcomes = await write(sql_db, [snap("s", 1, version=1), snap("t", 9), snap("s", 2, version=2)])
    assert outcomes == [True, True, True]
    record = await sql_db.aload("s")
    assert record is not None and record.version == 2 and record.state["n"] == 2
    assert [e.version for e in await sql_db.ahistory("s")] == [2, 1]


async def test_history_is_trimmed_to_its_limit(sql_db: SqlDb) -> None:
    """Batches keep only the newest ``history_limit`` versions, as single saves do."""
    for version in range(1, 7):
        await write(sql_db, [snap("s", version, version=version), snap("t", version, version)])
    assert [e.version for e in await sql_db.ahistory("s", limit=10)] == [6, 5, 4]
    assert [e.version for e in await sql_db.ahistory("t", limit=10)] == [6, 5, 4]


async def test_meta_and_data_are_stored_as_given(sql_db: SqlDb) -> None:
    """Kind, owner, user, timestamps, save id and data reach the row unchanged."""
    record = SessionRecord.from_state(
        "s",
        {"tasks": [{"id": 1}], "empty": {}},
        3,
        kind="team",
        owner_id="board",
        user_id="slack:T1:U1",
        created_at=100.5,
        updated_at=200.25,
        save_id="abc",
        data='{"runs":[]}',
    )
    assert await write(sql_db, [record]) == [True]
    stored = await sql_db.aload("s")
    assert stored is not None
    assert (stored.kind, stored.owner_id, stored.user_id) == ("team", "board", "slack:T1:U1")
    assert (stored.created_at, stored.updated_at, stored.save_id) == (100.5, 200.25, "abc")
    assert stored.data == '{"runs":[]}' and stored.state == {"tasks": [{"id": 1}], "empty": {}}
    [entry] = await sql_db.ahistory("s")
    assert entry.user_id == "slack:T1:U1" and entry.saved_at == 200.25


async def test_an_empty_batch_and_an_all_invalid_batch_touch_nothing(sql_db: SqlDb) -> None:
    """No valid record: no transaction, and the outcomes say why."""
    assert await write(sql_db, []) == []
    [outcome] = await write(sql_db, [snap("bad\x00", 1)])
    assert isinstance(outcome, InvalidIdError)


async def test_concurrent_batches_over_the_same_sessions_never_deadlock(sql_db: SqlDb) -> None:
    """Two snapshotters writing the same sessions in opposite orders both complete."""
    ids = [f"s{i:04d}" for i in range(3000)]
    older = [snap(sid, 1, version=1) for sid in ids]
    newer = [snap(sid, 2, version=2) for sid in reversed(ids)]
    for _ in range(3):
        first, second = await asyncio.gather(write(sql_db, older), write(sql_db, newer))
        assert all(isinstance(o, bool) for o in first + second)
    stored = await sql_db.aload_many(ids)
    assert {r.version for r in stored.values()} == {2}
