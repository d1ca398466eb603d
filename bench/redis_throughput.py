"""Throughput on the Redis hot store: snapshots into PostgreSQL, and many sessions at once.

    .venv/bin/python -m bench.redis_throughput [--sessions 1000] [--turns 10] [--concurrency 50]

1. Snapshot throughput: N dirty sessions in Redis drained by the snapshotter into
   PostgreSQL (sessions per second; ``bench.snapshot_drain`` has the details).
2. Run throughput: N sessions x T turns (one tool call, two model turns each), at most
   C sessions running at once, on RedisDb with a PostgreSQL snapshot target: turns/s,
   Redis round trips per turn, and this process's CPU against Redis's (which bounds
   it), on a private Redis server and on a private local 6-node Redis Cluster.
Uses the machine's PostgreSQL under a fresh schema (and its Redis for the snapshot
row), removed after; the private Redis servers are started and killed here.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid

import sqlalchemy as sa

from bench import snapshot_drain
from bench.local_redis import private_redis
from bench.workload import ToolThenAnswer, add_task, initial_state
from core.agent import Agent
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb

POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


async def snapshot_throughput(n_sessions: int, schema: str) -> None:
    """N dirty sessions drained into PostgreSQL, as ``bench.snapshot_drain`` measures it."""
    print(await snapshot_drain.measure(n_sessions, 1000, "batch", False, schema))


async def run_throughput(
    n_sessions: int, turns: int, concurrency: int, schema: str, redis: str = "server"
) -> None:
    """N sessions x T turns, C at a time, through one Agent on RedisDb on a private
    Redis ``redis`` ("server" or "cluster"): turns/s, round trips, and which CPU bounds it.

    Python CPU is this process's (``time.process_time``: every thread); Redis CPU is
    ``INFO cpu`` used_cpu_sys + used_cpu_user, summed over a cluster's nodes. One
    asyncio process uses at most one core, so Python CPU close to the wall time means
    the run is bound by Python.
    """
    with private_redis(redis) as (url, redis_cpu):
        durable = PostgresDb(db_url=POSTGRES_URL, schema=schema)
        hot = RedisDb(db_url=url, key_prefix=f"bench-{uuid.uuid4().hex[:8]}:", snapshot_to=durable)
        agent = Agent(
            model=ToolThenAnswer(), db=hot, tools=[add_task], session_state=initial_state(10)
        )
        gate = asyncio.Semaphore(concurrency)

        async def session(i: int) -> None:
            async with gate:
                for _ in range(turns):
                    # ids of this Redis kind: an earlier run's sessions are in PostgreSQL
                    await agent.arun("add", session_id=f"{redis}-run-{i}")

        await session(-1)  # connections, scripts and slot map warm
        hot.round_trips.reset()
        redis_before, python_before = redis_cpu(), time.process_time()
        start = time.perf_counter()
        await asyncio.gather(*(session(i) for i in range(n_sessions)))
        elapsed = time.perf_counter() - start
        python = time.process_time() - python_before
        redis_used = redis_cpu() - redis_before
        trips = hot.round_trips.reset()
        total = n_sessions * turns
        sample = await agent.aget_session_state(f"{redis}-run-0")
        assert len(sample["tasks"]) == 10 + turns, "every turn must have added one task"
        bound = "Python" if python > redis_used else "Redis"
        print(
            f"| {n_sessions:,} sessions x {turns} turns, {concurrency} at once, Redis {redis} "
            f"| {total:,} turns | {elapsed:.2f} s | {total / elapsed:,.0f} turns/s "
            f"| {trips / total:.2f} round trips/turn; CPU: Python {python:.2f} s "
            f"({python / elapsed:.0%} of wall), Redis {redis_used:.2f} s "
            f"({redis_used / elapsed:.0%}): bound by {bound}; load {os.getloadavg()[0]:.1f} |"
        )
        await hot.aclose()
        ids = [f"{redis}-run-{i}" for i in range(n_sessions)]
        snapshotted = len(await durable.aload_many(ids))
        print(f"|  after close: sessions in PostgreSQL | {snapshotted:,} | | | |")
        await durable.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument(
        "--redis",
        choices=["server", "cluster", "both"],
        default="both",
        help="run throughput on a private Redis server, a private 6-node cluster, or both",
    )
    parser.add_argument("--runs-only", action="store_true", help="skip the snapshot row")
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        print("| what | size | time | throughput | notes |")
        print("|---|---:|---:|---:|---|")
        if not args.runs_only:
            await snapshot_throughput(args.sessions, schema)
        for redis in ("server", "cluster") if args.redis == "both" else (args.redis,):
            await run_throughput(args.sessions, args.turns, args.concurrency, schema, redis)
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    asyncio.run(main())
