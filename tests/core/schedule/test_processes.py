"""Three scheduler processes compete for the same due schedules: each fires once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.schedule import Schedules, schedule_store

ROOT = Path(__file__).resolve().parents[3]
SESSIONS = [f"slack:T1:C{n}:1.0" for n in range(4)]
PER_SESSION = 3


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.core.schedule.worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )


async def _compete(db: BaseDb, args: list[str], env: dict[str, str]) -> None:
    made = []
    for session_id in SESSIONS:
        book = Schedules(schedule_store(db), session_id=session_id, owner_id="reminders")
        for n in range(PER_SESSION):
            made.append(await book.aadd(in_=0.5, input=f"{session_id} #{n}"))
    time.sleep(0.5)  # let them come due (the processes use the real clock)
    procs = [_spawn(args, env) for _ in range(3)]
    outputs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    fired = [schedule_id for out in outputs for schedule_id in json.loads(out)]
    assert sorted(fired) == sorted(s.schedule_id for s in made)  # each exactly once
    for session_id in SESSIONS:
        record = await db.aload(session_id)
        assert record is not None
        assert sorted(record.state["fired"]) == sorted(
            f"{session_id} #{n}" for n in range(PER_SESSION)
        )
    await db.aclose()


@pytest.mark.slow
async def test_three_sqlite_processes(tmp_path: Path) -> None:
    """Three processes on one SQLite file."""
    path = tmp_path / "state.db"
    await _compete(SqliteDb(db_file=path), ["sqlite", str(path)], dict(os.environ))


@pytest.mark.slow
async def test_three_postgres_processes(postgres_schema: tuple[str, str]) -> None:
    """Three processes on one PostgreSQL schema."""
    url, schema = postgres_schema
    await _compete(
        PostgresDb(db_url=url, schema=schema), ["postgres", url, schema], dict(os.environ)
    )


@pytest.mark.slow
async def test_three_redis_processes(tmp_path: Path, redis_url: str, key_prefix: str) -> None:
    """Three processes on one Redis with a SQLite durable store behind it."""
    durable = tmp_path / "durable.db"
    env = {**os.environ, "STATEBOT_TEST_DURABLE": str(durable)}
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=SqliteDb(db_file=durable),
        run_snapshotter=False,
    )
    await _compete(db, ["redis+sqlite", redis_url, key_prefix], env)
