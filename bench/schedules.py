"""Scheduled runs at scale: poll cost with 10,000 pending schedules, firing latency.

    .venv/bin/python -m bench.schedules [--store redis+postgres] [--schedules 10000]
        [--sessions 1000] [--polls 30] [--due 1000] [--window 20] [--poll-interval 1.0]

1. Fill the store with N pending schedules spread over S sessions (due tomorrow).
2. Poll cost: one scheduler polls P times with nothing due; per poll, the CPU time of
   the polling process (``time.process_time``, its store threads included), the Redis
   round trips and the SQL statements it sent. Per second = per poll × polls/second.
3. Firing latency: D more schedules come due, spread evenly over W seconds, and two
   scheduler processes (``--worker`` mode of this module) poll every ``poll-interval``
   seconds. Latency = fire callback start − nominal time. Every schedule must fire
   exactly once across the two processes (checked).

Stores: ``redis+postgres`` (Redis due index, PostgreSQL authority), ``redis+sqlite``,
``postgres``, ``sqlite``. The machine's Redis and PostgreSQL are used under a fresh
key prefix / schema, removed after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from core.db.base import BaseDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from core.schedule import Firing, Scheduler, Schedules, ScheduleSettings, schedule_store

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def open_db(spec: dict[str, str]) -> BaseDb:
    """The store of one process, from a spec both the parent and workers understand."""
    kind = spec["kind"]
    durable: SqlDb | None = None
    if kind.endswith("postgres"):
        durable = PostgresDb(db_url=POSTGRES_URL, schema=spec["schema"])
    elif kind.endswith("sqlite"):
        durable = SqliteDb(db_file=spec["file"])
    if kind.startswith("redis"):
        return RedisDb(
            db_url=REDIS_URL, key_prefix=spec["prefix"], snapshot_to=durable, run_snapshotter=False
        )
    assert durable is not None
    return durable


def sql_engine(db: BaseDb) -> sa.Engine:
    durable = db.snapshot_to if isinstance(db, RedisDb) else db
    assert isinstance(durable, SqlDb)
    return durable._engine


async def fill(db: BaseDb, n: int, sessions: int, due_in: float) -> float:
    """N schedules across ``sessions`` sessions; returns schedules added per second."""
    store = schedule_store(db)
    books = [
        Schedules(store, session_id=f"bench:T1:C{s}:1.0", owner_id="bench") for s in range(sessions)
    ]
    start = time.perf_counter()
    for batch in range(0, n, 100):
        await asyncio.gather(
            *(
                books[i % sessions].aadd(in_=due_in, input=f"#{i}")
                for i in range(batch, min(n, batch + 100))
            )
        )
    return n / (time.perf_counter() - start)


async def poll_cost(db: BaseDb, polls: int) -> dict[str, float]:
    """Per-poll CPU, wall time, Redis round trips and SQL statements with nothing due."""
    statements = [0]

    def count(*_: Any) -> None:
        statements[0] += 1

    engine = sql_engine(db)
    event.listen(engine, "before_cursor_execute", count)

    async def never(_: Firing) -> None:
        raise AssertionError("nothing is due")

    scheduler = Scheduler(db, never)
    start = time.perf_counter()
    await scheduler.run_once()  # first poll builds the Redis index from the durable rows
    first = time.perf_counter() - start
    trips = db.round_trips if isinstance(db, RedisDb) else None
    if trips is not None:
        trips.reset()
    statements[0] = 0
    walls = []
    cpu0 = time.process_time()
    for _ in range(polls):
        start = time.perf_counter()
        await scheduler.run_once()
        walls.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu0
    event.remove(engine, "before_cursor_execute", count)
    return {
        "cpu_ms": 1000 * cpu / polls,
        "wall_p50_ms": 1000 * statistics.median(walls),
        "round_trips": (trips.count if trips is not None else 0) / polls,
        "sql": statements[0] / polls,
        "first_s": first,
    }


async def fire_cost(db: BaseDb, n: int) -> dict[str, float]:
    """Per fired schedule (in this process, nothing else due): CPU, round trips, SQL."""
    statements = [0]

    def count(*_: Any) -> None:
        statements[0] += 1

    store = schedule_store(db)
    book = Schedules(store, session_id="bench:T1:fire-cost:1.0", owner_id="bench")
    for i in range(n):
        await book.aadd(in_=0.001, input=f"now #{i}")
    await asyncio.sleep(0.01)

    async def nothing(_: Firing) -> None:
        return None

    # one schedule per poll, so the count is the whole path: poll, lease, claim, start, finish
    scheduler = Scheduler(db, nothing, settings=ScheduleSettings(batch=1))
    engine = sql_engine(db)
    event.listen(engine, "before_cursor_execute", count)
    trips = db.round_trips if isinstance(db, RedisDb) else None
    if trips is not None:
        trips.reset()
    cpu0 = time.process_time()
    fired = 0
    while fired < n:
        fired += await scheduler.run_once()
    cpu = time.process_time() - cpu0
    event.remove(engine, "before_cursor_execute", count)
    return {
        "cpu_ms": 1000 * cpu / n,
        "round_trips": (trips.count if trips is not None else 0) / n,
        "sql": statements[0] / n,
    }


async def worker(
    spec: dict[str, str], until: float, poll_interval: float, lease_wait: float
) -> None:
    """One scheduler process: poll until ``until`` (a time.time()), then print latencies."""
    db = open_db(spec)
    fired: list[tuple[str, float]] = []

    async def fire(firing: Firing) -> None:
        fired.append((firing.schedule.schedule_id, time.time() - firing.schedule.nominal_at))

    settings = ScheduleSettings(poll_interval=poll_interval, lease_wait=lease_wait)
    scheduler = Scheduler(db, fire, settings=settings)
    task = scheduler.start()
    await asyncio.sleep(max(0.0, until - time.time()))
    # a loaded machine may still have a backlog: go on (at most 2 minutes) until none is due
    store = schedule_store(db)
    while time.time() < until + 120 and await store.adue(time.time(), 1):
        await asyncio.sleep(poll_interval)
    await scheduler.stop()
    await task if not task.done() else None
    await db.aclose()
    print(json.dumps(fired))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def firing_latency(
    db: BaseDb,
    spec: dict[str, str],
    due: int,
    window: float,
    poll_interval: float,
    lease_wait: float,
    rate: float,
) -> dict[str, float]:
    """D schedules due over W seconds, fired by two scheduler processes."""
    store = schedule_store(db)
    # the first comes due once all are added and the processes have started
    start_at = time.time() + 5.0 + 2 * due / rate
    books = [
        Schedules(store, session_id=f"bench:T1:C{s}:1.0", owner_id="bench") for s in range(1000)
    ]
    made = []
    for i in range(due):
        at_ = start_at + window * i / due
        made.append(await books[i % 1000].aadd(in_=at_ - time.time(), input=f"due #{i}"))
    until = start_at + window + poll_interval  # the last one is due; the backlog follows
    args = [json.dumps(spec), str(until), str(poll_interval), str(lease_wait)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.schedules", "--worker", *args],
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    # logs go to stdout too: the result is the last line, the rest is shown as it is
    outputs = []
    for proc in procs:
        *logged, last = proc.communicate(timeout=until - time.time() + 240)[0].splitlines()
        print("\n".join(logged), file=sys.stderr) if logged else None
        outputs.append(last)
    fired = [tuple(item) for out in outputs for item in json.loads(out)]
    ids = [item[0] for item in fired]
    expected = {s.schedule_id for s in made}
    assert len(ids) == len(set(ids)), "a schedule fired twice"
    missing = expected - set(ids)
    if missing:
        left = [await store.aget(s.session_id, s.schedule_id) for s in made]
        states = sorted(f"{s.status}/attempts={s.attempts}" for s in left if s is not None)
        raise AssertionError(f"{len(missing)} schedules did not fire; still stored: {states}")
    latencies = [float(item[1]) for item in fired]
    per_process = [len(json.loads(out)) for out in outputs]
    return {
        "fired": len(ids),
        "p50_ms": 1000 * percentile(latencies, 0.5),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "max_ms": 1000 * max(latencies),
        "split": per_process,  # type: ignore[dict-item]
    }


def cleanup(spec: dict[str, str]) -> None:
    if "schema" in spec:
        engine = sa.create_engine(POSTGRES_URL)
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{spec["schema"]}" CASCADE'))
        engine.dispose()
    if "prefix" in spec:
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(match=f"*{spec['prefix']}*", count=1000):
            client.delete(key)
        client.close()


async def main(args: argparse.Namespace) -> None:
    tag = uuid.uuid4().hex[:8]
    spec = {"kind": args.store}
    tmp = tempfile.mkdtemp(prefix="bench-schedules-")
    if args.store.endswith("postgres"):
        spec["schema"] = f"bench_sched_{tag}"
    if args.store.endswith("sqlite"):
        spec["file"] = str(Path(tmp) / "durable.db")
    if args.store.startswith("redis"):
        spec["prefix"] = f"bench-sched-{tag}:"
    db = open_db(spec)
    try:
        rate = await fill(db, args.schedules, args.sessions, due_in=86400)
        print(
            f"store {args.store}: {args.schedules:,} pending schedules across "
            f"{args.sessions:,} sessions (added at {rate:,.0f}/s)"
        )
        cost = await poll_cost(db, args.polls)
        per_second = 1 / args.poll_interval
        print(
            f"| poll, nothing due | {args.polls} polls | CPU {cost['cpu_ms']:.2f} ms/poll "
            f"= {cost['cpu_ms'] * per_second / 10:.2f} % of a core at {per_second:g} poll/s | "
            f"wall p50 {cost['wall_p50_ms']:.2f} ms | {cost['round_trips']:.2f} Redis round "
            f"trips/poll | {cost['sql']:.2f} SQL statements/poll |"
        )
        if args.store.startswith("redis"):
            print(
                f"| first poll (builds the Redis index from the durable rows) "
                f"| {cost['first_s']:.2f} s |"
            )
        per_fire = await fire_cost(db, args.fire_cost)
        print(
            f"| one fire, one process (poll + lease + claim + start + finish) | "
            f"{args.fire_cost} fires | CPU {per_fire['cpu_ms']:.2f} ms/fire | "
            f"{per_fire['round_trips']:.1f} Redis round trips/fire | "
            f"{per_fire['sql']:.1f} SQL statements/fire |"
        )
        latency = await firing_latency(
            db, spec, args.due, args.window, args.poll_interval, args.lease_wait, rate
        )
        print(
            f"| firing, 2 processes | {latency['fired']:,} due over {args.window:g} s, "
            f"poll every {args.poll_interval:g} s, lease wait {args.lease_wait:g} s "
            f"| p50 {latency['p50_ms']:.0f} ms | "
            f"p99 {latency['p99_ms']:.0f} ms | max {latency['max_ms']:.0f} ms | "
            f"split {latency['split']} | each fired once |"
        )
    finally:
        await db.aclose()
        if isinstance(db, RedisDb) and db.snapshot_to is not None:
            await db.snapshot_to.aclose()
        cleanup(spec)
        shutil.rmtree(tmp, ignore_errors=True)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--worker", nargs=4, metavar=("SPEC", "UNTIL", "POLL", "WAIT"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--store",
        default="redis+postgres",
        choices=["redis+postgres", "redis+sqlite", "postgres", "sqlite"],
    )
    parser.add_argument("--schedules", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--polls", type=int, default=30)
    # the defaults below scale with --schedules (10,000: 100 fires, 1,000 due over 20 s),
    # so a small run (bench.run_all --quick) is small throughout; 50 due per second
    parser.add_argument("--fire-cost", type=int, default=None, help="default: schedules/100")
    parser.add_argument("--due", type=int, default=None, help="default: schedules/10")
    parser.add_argument("--window", type=float, default=None, help="default: due/50 s")
    parser.add_argument("--poll-interval", type=float, default=1.0)
    parser.add_argument("--lease-wait", type=float, default=ScheduleSettings().lease_wait)
    args = parser.parse_args()
    args.fire_cost = args.fire_cost or max(1, args.schedules // 100)
    args.due = args.due or max(1, args.schedules // 10)
    args.window = args.window or args.due / 50
    if args.worker:
        spec, until, poll, wait = args.worker
        asyncio.run(worker(json.loads(spec), float(until), float(poll), float(wait)))
    else:
        asyncio.run(main(args))


if __name__ == "__main__":
    cli()
