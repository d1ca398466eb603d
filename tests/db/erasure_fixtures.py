"""Shared data and scanners for the erasure, export and retention tests.

The stores are the deployments the issue names: RedisDb snapshotting to a real
PostgreSQL schema, and SqliteDb on a file. The scanners read *everything* those
stores hold (every Redis key under the test's prefix, whatever its type; every row of
every table) so "no trace" is checked against the stores, not against the API.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.db.limits import StateLimits
from core.db.postgres import PostgresDb
from core.db.records import SessionMeta, UserMemory
from core.db.redis import RedisDb
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from core.governance.budgets.model import Scope, Usage, utc_day
from core.governance.budgets.stores import usage_store
from core.run.history import RunRecord, SessionData
from core.schedule.model import Schedule
from core.schedule.stores import schedule_store

ANA = "slack:T1:UANA"
BOB = "slack:T1:UBOB"
OWN = "slack:T1:DANA"  # Ana's DM with the bot: only she ran there
SHARED = "slack:T1:C1:1700.1"  # a thread where Ana and Bob both ran


@pytest.fixture(params=["redis+postgres", "sqlite"])
def deployment_kind(request: pytest.FixtureRequest) -> str:
    """Which deployment; its services' fixtures set up first (they are async)."""
    if request.param != "sqlite":
        request.getfixturevalue("redis_url")
        request.getfixturevalue("postgres_schema")
    return str(request.param)


@pytest.fixture
async def deployment(
    deployment_kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseDb]:
    """RedisDb over PostgreSQL (the scaled deployment), or SqliteDb alone."""
    if deployment_kind == "sqlite":
        db: BaseDb = SqliteDb(db_file=tmp_path / "state.db")
    else:
        url, schema = request.getfixturevalue("postgres_schema")
        db = RedisDb(
            db_url=request.getfixturevalue("redis_url"),
            key_prefix=request.getfixturevalue("key_prefix"),
            snapshot_to=PostgresDb(db_url=url, schema=schema),
            run_snapshotter=False,
        )
    try:
        yield db
    finally:
        await db.aclose()
        if isinstance(db, RedisDb) and db.snapshot_to is not None:
            await db.snapshot_to.aclose()


@pytest.fixture
async def redis_postgres(
    redis_url: str, key_prefix: str, postgres_schema: tuple[str, str]
) -> AsyncIterator[RedisDb]:
    """The scaled deployment alone: RedisDb over PostgreSQL."""
    url, schema = postgres_schema
    durable = PostgresDb(db_url=url, schema=schema)
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    try:
        yield db
    finally:
        await db.aclose()
        await durable.aclose()


@pytest.fixture
async def redis_alone(redis_url: str, key_prefix: str) -> AsyncIterator[RedisDb]:
    """RedisDb without a durable store (sessions, memories, schedules all in Redis)."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    try:
        yield db
    finally:
        await db.aclose()


async def save_run(
    db: BaseDb, session_id: str, user_id: str, state: dict[str, Any], text: str
) -> int:
    """Save ``state`` as ``user_id``'s run of ``session_id`` (state and run history)."""
    async with db.session_lock(session_id) as lease:
        record = await db.aload(session_id)
        data = SessionData.decode(record.data if record is not None else "")
        data.upsert(RunRecord(f"run-{text}", "completed", text, f"ok {text}", user_id, "bot"))
        removed = set(record.texts) - set(state) if record is not None else set()
        return await db.asave(
            session_id,
            expected_version=record.version if record is not None else 0,
            changed=encode_delta(state),
            removed=removed,
            meta=SessionMeta(owner_id="taskboard", user_id=user_id),
            lease=lease,
            data=data.encode(StateLimits()),
        )


def schedule(session_id: str, user_id: str, schedule_id: str) -> Schedule:
    """A pending reminder made by ``user_id``."""
    return Schedule(
        schedule_id=schedule_id,
        session_id=session_id,
        input=f"remind {schedule_id}",
        nominal_at=4_000_000_000.0,
        due_at=4_000_000_000.0,
        owner_id="taskboard",
        user_id=user_id,
        target_text=json.dumps({"channel": session_id}),
    )


async def fill(db: BaseDb) -> None:
    """Ana's own DM, a thread shared with Bob; memories, reminders and usage counters."""
    await save_run(db, OWN, ANA, {"notes": ["call mum"], "me": ANA}, "a1")
    await save_run(db, OWN, ANA, {"notes": ["call mum", "buy milk"], "me": ANA}, "a2")
    task_a = {"title": "design", "assignee": ANA}
    await save_run(db, SHARED, ANA, {"tasks": [task_a], "votes": {ANA: 1}}, "a3")
    if isinstance(db, RedisDb):
        await db.aflush()  # the older versions reach the durable history
    task_b = {"title": "review", "assignee": BOB}
    await save_run(db, SHARED, BOB, {"tasks": [task_a, task_b], "votes": {ANA: 1, BOB: 2}}, "b1")
    await save_run(db, SHARED, BOB, {"tasks": [task_a, task_b], "votes": {ANA: 1, BOB: 3}}, "b2")
    store = schedule_store(db)
    await store.aadd(schedule(OWN, ANA, "s-own"), max_per_session=10)
    await store.aadd(schedule(SHARED, ANA, "s-ana"), max_per_session=10)
    await store.aadd(schedule(SHARED, BOB, "s-bob"), max_per_session=10)
    today = utc_day(time.time())
    usage = usage_store(db)
    await usage.aadd([Scope("user", ANA), Scope("session", OWN)], today, Usage(120, 2))
    await usage.aadd([Scope("user", BOB), Scope("session", SHARED)], today, Usage(80, 1))
    await db.aadd_memory(UserMemory("m1", ANA, "likes tea"))
    await db.aadd_memory(UserMemory("m2", ANA, "works at night"))
    await db.aadd_memory(UserMemory("m3", BOB, "likes coffee"))


async def redis_texts(db: RedisDb) -> list[str]:
    """Every key under the store's prefix and every value it holds, as text."""
    client = db._clients.get()
    out: list[str] = []
    async for key in client.scan_iter(match=f"*{db.key_prefix}*", count=1000):
        out.append(str(key))
        kind = str(await client.type(key))
        if kind == "string":
            out.append(str(await client.get(key)))
        elif kind == "hash":
            out.extend(f"{k!s}={v!s}" for k, v in (await client.hgetall(key)).items())
        elif kind == "list":
            out.extend(str(v) for v in await client.lrange(key, 0, -1))
        elif kind == "set":
            out.extend(str(v) for v in await client.smembers(key))
        elif kind == "zset":
            out.extend(str(v) for v in await client.zrange(key, 0, -1))
        else:
            raise AssertionError(f"key {key!r} of unexpected type {kind!r}")  # pragma: no cover
    return out


def sql_texts(db: SqlDb) -> dict[str, list[str]]:
    """Every row of every table of the store's schema, as text, by table."""
    engine = db._engine
    schema = db._names.schema
    out: dict[str, list[str]] = {}
    inspector = sa.inspect(engine)
    for name in inspector.get_table_names(schema=schema):
        table = sa.Table(name, sa.MetaData(schema=schema), autoload_with=engine)
        with engine.connect() as conn:
            out[name] = [repr(tuple(row)) for row in conn.execute(sa.select(table))]
    return out


async def traces(db: BaseDb, needle: str) -> list[str]:
    """Everything in the deployment's stores that contains ``needle``."""
    found: list[str] = []
    durable = db.snapshot_to if isinstance(db, RedisDb) else db
    if isinstance(db, RedisDb):
        found += [f"redis: {t}" for t in await redis_texts(db) if needle in t]
    if durable is None:  # Redis alone
        return found
    assert isinstance(durable, SqlDb)
    for table, rows in sql_texts(durable).items():
        found += [f"{table}: {r}" for r in rows if needle in r]
    return found
