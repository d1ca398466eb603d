"""Snapshot drain: N dirty sessions in Redis copied into PostgreSQL by the snapshotter.

    .venv/bin/python -m bench.snapshot_drain [--sessions 10000] [--batch 1000]
        [--writer batch|executemany|per-session] [--profile] [--sqlite]

Fills a fresh Redis key prefix with N sessions (5 top-level keys, ~1 KB of JSON each)
without snapshotting them, then times one ``Snapshotter.drain()`` into a fresh
PostgreSQL schema (sessions/s), and splits the wall time into reading the dirty
sessions from Redis (``abatch``), writing them to PostgreSQL and retiring them from the
dirty sets (``amark_clean``), with the CPU seconds of this process, of Redis and of
PostgreSQL meanwhile. ``--writer``: ``batch`` is the store's batched upsert (COPY into a
staging table and one merge); ``executemany`` the alternative it was measured against
(psycopg's pipelined executemany, same statements per row); ``per-session`` one upsert
transaction per session, as before batching. ``--profile`` prints the top functions
of this process by own time. ``--sqlite`` drains into a new SQLite file instead
(executemany in one transaction). Whether redis-py parses with hiredis is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import os
import pstats
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import sqlalchemy as sa
from redis.utils import HIREDIS_AVAILABLE

import bench.workload  # noqa: F401 - keeps the runtime's debug lines out of the table
from core.db import codec
from core.db.postgres import PostgresDb
from core.db.records import SessionMeta, SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import CleanResult, DirtySource, Snapshotter
from core.db.sql.snapshots import Outcome, state_text, upsert_snapshots
from core.db.sql.store import SqlDb
from core.db.sql.tables import Tables
from core.db.sqlite import SqliteDb

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def session_state(i: int) -> dict[str, Any]:
    """A realistic small state: a task board of 6 tasks, settings, a note (~0.9 KB)."""
    tasks = [
        {"id": k, "title": f"task {k} of session {i}", "status": "open", "assignee": f"U{k:07d}"}
        for k in range(6)
    ]
    return {
        "tasks": tasks,
        "categories": ["general", "work", "personal", "errands"],
        "owner": f"slack:T0001:U{i:07d}",
        "settings": {"timezone": "Europe/Berlin", "notify": True, "digest_hour": 9},
        "notes": "Remember to review the sprint board before Friday; " * 5,
    }


class Stopwatch:
    """Wall seconds spent in wrapped coroutine functions, per label; with ``redis`` (a
    client of the Redis under test) also the CPU seconds of this process, of Redis and
    of PostgreSQL inside them, meaningful only when the stages run one at a time."""

    def __init__(self, redis: aioredis.Redis | None = None) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, list[float]] = {}
        self._redis = redis

    async def _cpu(self) -> tuple[float, float, dict[int, float]]:
        assert self._redis is not None
        return time.process_time(), await redis_cpu(self._redis), postgres_cpu()

    def wrap(self, label: str, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(fn)
        async def timed(*args: Any, **kwargs: Any) -> Any:
            before = await self._cpu() if self._redis is not None else None
            start = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - start
                if before is not None:
                    python, redis, _ = await self._cpu()
                    used = self.cpu.setdefault(label, [0.0, 0.0, 0.0])
                    used[0] += python - before[0]
                    used[1] += redis - before[1]
                    used[2] += postgres_cpu_since(before[2])

        return timed

    def cpu_split(self) -> str:
        """Per stage: CPU seconds of this process / Redis / PostgreSQL."""
        return "; ".join(
            f"{label}: CPU Python {p:.2f} s, Redis {r:.2f} s, PostgreSQL {g:.2f} s"
            for label, (p, r, g) in self.cpu.items()
        )


class TimedSource:
    """The dirty queue, its reads and cleanups timed."""

    def __init__(self, queue: DirtySource, watch: Stopwatch) -> None:
        self._queue = queue
        self._read = watch.wrap("read from Redis", queue.abatch)
        self._retire = watch.wrap("retire in Redis", queue.amark_clean)

    async def abatch(self, limit: int, exclude: Collection[str] = ()) -> list[SessionRecord]:
        records: list[SessionRecord] = await self._read(limit, exclude)
        return records

    async def amark_clean(self, records: Iterable[SessionRecord]) -> list[CleanResult]:
        results: list[CleanResult] = await self._retire(records)
        return results

    async def aquarantine(self, record: SessionRecord, reason: str) -> bool:
        return await self._queue.aquarantine(record, reason)


def postgres_cpu() -> dict[int, float]:
    """CPU seconds of each ``postgres`` process on this machine, by pid."""
    ticks = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        if name == "postgres":
            fields = stat[stat.rindex(")") + 2 :].split()
            found[int(proc.name)] = (int(fields[11]) + int(fields[12])) / ticks  # utime+stime
    return found


def postgres_cpu_since(before: dict[int, float]) -> float:
    """CPU seconds the ``postgres`` processes used since ``before`` (those still running;
    shared with whatever else uses the server)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in postgres_cpu().items())


async def redis_cpu(client: aioredis.Redis) -> float:
    info = await client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def executemany_write(
    writer: sa.Engine, tables: Tables, records: Sequence[SessionRecord], history_limit: int
) -> list[Outcome]:
    """The alternative to COPY + merge: psycopg's pipelined executemany, row by row.

    Written only for the measurement (no conflict detection, no id checks): the same
    version-guarded upsert and history statements, one row each, pipelined.
    """
    name = writer.dialect.identifier_preparer.format_table
    sessions, history = name(tables.sessions), name(tables.history)
    cols: tuple[str, ...] = ("session_id", "kind", "owner_id", "user_id", "state", "version")
    cols = (*cols, "created_at", "updated_at", "save_id", "data")
    updates = ", ".join(f"{c} = excluded.{c}" for c in cols[1:])
    upsert = (
        f"INSERT INTO {sessions} AS s ({', '.join(cols)}) VALUES ({', '.join(['%s'] * 10)}) "
        f"ON CONFLICT (session_id) DO UPDATE SET {updates} "
        "WHERE s.version < excluded.version RETURNING s.session_id"
    )
    add = (
        f"INSERT INTO {history} (session_id, version, state, user_id, saved_at, save_id) "
        "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (session_id, version) DO UPDATE "
        "SET state = excluded.state, user_id = excluded.user_id, "
        "saved_at = excluded.saved_at, save_id = excluded.save_id"
    )
    trim = f"DELETE FROM {history} WHERE session_id = %s AND version <= %s"
    texts = [state_text(r) for r in records]
    rows = [
        (r.session_id, r.kind, r.owner_id, r.user_id, t, r.version, *_times(r), r.save_id, r.data)
        for r, t in zip(records, texts, strict=True)
    ]
    with writer.begin() as conn:
        psycopg_conn: Any = conn.connection.driver_connection
        cursor = psycopg_conn.cursor()
        cursor.executemany(upsert, rows, returning=True)
        written: set[str] = set()
        while True:
            found = cursor.fetchone()
            if found is not None:
                written.add(found[0])
            if not cursor.nextset():
                break
        cursor.executemany(
            add,
            [
                (r.session_id, r.version, t, r.user_id, r.updated_at, r.save_id)
                for r, t in zip(records, texts, strict=True)
                if r.session_id in written
            ],
        )
        stale = [
            (r.session_id, r.version - history_limit)
            for r in records
            if r.session_id in written and r.version > history_limit
        ]
        if stale:
            cursor.executemany(trim, stale)
    return [r.session_id in written for r in records]


def _times(record: SessionRecord) -> tuple[float, float]:
    return record.created_at, record.updated_at


def batched(durable: SqlDb, writer: str) -> Callable[..., Awaitable[list[Outcome]]]:
    """The batch write under test, run the way the store runs blocking calls."""

    async def write(records: Sequence[SessionRecord]) -> list[Outcome]:
        if writer == "executemany":
            call = functools.partial(
                executemany_write, durable._writer, durable._tables, records, durable.history_limit
            )
        else:
            call = functools.partial(
                upsert_snapshots,
                durable._writer,
                durable._tables,
                records,
                history_limit=durable.history_limit,
                limits=durable.limits,
                where=durable._where,
            )
        return await durable._run(call)

    async def one_at_a_time(records: Sequence[SessionRecord]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for record in records:
            try:
                outcomes.append(await durable.aupsert_snapshot(record))
            except Exception as exc:
                outcomes.append(exc)
        return outcomes

    return one_at_a_time if writer == "per-session" else write


async def fill(hot: RedisDb, n_sessions: int) -> None:
    """N sessions saved once each (so dirty), 50 saves in flight at a time."""
    gate = asyncio.Semaphore(50)
    meta = SessionMeta(owner_id="taskboard", user_id="slack:T0001:U0000001")

    async def save(i: int) -> None:
        async with gate:
            changed = codec.encode_delta(session_state(i))
            await hot.asave(
                f"slack:T0001:C0001:{i}", expected_version=0, changed=changed, meta=meta
            )

    await asyncio.gather(*(save(i) for i in range(n_sessions)))


async def measure(
    n_sessions: int,
    batch: int,
    writer: str,
    profile: bool,
    schema: str,
    sqlite: Path | None = None,
    *,
    overlap: int = 2,
    stages: bool = False,
) -> str:
    """The table row of one drain of ``n_sessions`` into ``schema`` (or the SQLite file
    ``sqlite``); the profile is printed."""
    durable: SqlDb = (
        PostgresDb(db_url=POSTGRES_URL, schema=schema) if sqlite is None else SqliteDb(sqlite)
    )
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    hot = RedisDb(db_url=REDIS_URL, key_prefix=prefix, snapshot_to=durable, run_snapshotter=False)
    client = aioredis.Redis.from_url(REDIS_URL)
    try:
        await fill(hot, n_sessions)
        await durable.aping()  # migrate the schema before the clock starts
        watch = Stopwatch(client if stages else None)
        source = TimedSource(hot.dirty, watch)
        snapshotter = Snapshotter(source, durable, batch_size=batch, overlap=overlap)
        durable.aupsert_snapshots = watch.wrap("write durable store", batched(durable, writer))  # type: ignore[method-assign,assignment]
        profiler = cProfile.Profile() if profile else None
        redis_before, pg_before, cpu_before = (
            await redis_cpu(client),
            postgres_cpu(),
            time.process_time(),
        )
        start = time.perf_counter()
        if profiler is not None:
            profiler.enable()
        if stages:  # one stage at a time, so each stage's CPU can be told apart
            drained = 0
            while done := await snapshotter.drain_once():
                drained += done
        else:
            drained = await snapshotter.drain(max_passes=1_000_000)
        if profiler is not None:
            profiler.disable()
        elapsed = time.perf_counter() - start
        python = time.process_time() - cpu_before
        redis_used = await redis_cpu(client) - redis_before
        pg_used = postgres_cpu_since(pg_before)
        ids = [f"slack:T0001:C0001:{i}" for i in range(n_sessions)]
        stored = len(await durable.aload_many(ids))
        split = ", ".join(f"{k} {v:.2f} s" for k, v in watch.seconds.items())
        row = (
            f"| snapshot drain into {'SQLite' if sqlite else 'PostgreSQL'}, writer={writer}, "
            f"batch {batch} | {n_sessions:,} sessions "
            f"| {elapsed:.2f} s "
            f"| {n_sessions / elapsed:,.0f} sessions/s | drained {drained}, stored {stored}; "
            f"{split}; CPU: Python {python:.2f} s, Redis {redis_used:.2f} s"
            f"{'' if sqlite else f', PostgreSQL {pg_used:.2f} s'}; "
            f"hiredis {'on' if HIREDIS_AVAILABLE else 'off'}; "
            f"{'stages one at a time: ' + watch.cpu_split() if stages else f'overlap {overlap}'} |"
        )
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return row
    finally:
        async for key in client.scan_iter(match=f"*{prefix}*", count=1000):
            await client.delete(key)
        await client.aclose()
        await hot.aclose()
        await durable.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument(
        "--writer", choices=["batch", "executemany", "per-session"], default="batch"
    )
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--overlap", type=int, default=2, help="batches in flight (drain)")
    parser.add_argument(
        "--stages",
        action="store_true",
        help="one pass at a time (drain_once), with each stage's CPU: Python, Redis, PostgreSQL",
    )
    parser.add_argument("--sqlite", action="store_true", help="drain into a new SQLite file")
    args = parser.parse_args()
    if args.sqlite and args.writer == "executemany":
        parser.error("--writer executemany is PostgreSQL's pipeline mode; not with --sqlite")
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        print("| what | size | time | throughput | notes |")
        print("|---|---:|---:|---:|---|")
        with tempfile.TemporaryDirectory() as tmp:
            sqlite = Path(tmp) / "snapshots.db" if args.sqlite else None
            row = await measure(
                args.sessions,
                args.batch,
                args.writer,
                args.profile,
                schema,
                sqlite,
                overlap=args.overlap,
                stages=args.stages,
            )
        print(row)
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    asyncio.run(main())
