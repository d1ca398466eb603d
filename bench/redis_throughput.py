"""Throughput on the Redis hot store: snapshots into PostgreSQL, and many sessions at once.

    .venv/bin/python -m bench.redis_throughput [--sessions 1000] [--turns 10] [--concurrency 50]

1. Snapshot throughput: N dirty sessions in Redis drained by the snapshotter into
   PostgreSQL (sessions per second; ``bench.snapshot_drain`` has the details).
2. Run throughput: N sessions x T turns (one tool call, two model turns each), at most
   C sessions running at once, on RedisDb with a PostgreSQL snapshot target (turns/s).
Uses the machine's Redis and PostgreSQL under a fresh key prefix / schema, removed after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid

import sqlalchemy as sa

from bench import snapshot_drain
from bench.workload import ToolThenAnswer, add_task, initial_state
from core.agent import Agent
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


async def snapshot_throughput(n_sessions: int, schema: str) -> None:
    """N dirty sessions drained into PostgreSQL, as ``bench.snapshot_drain`` measures it."""
    print(await snapshot_drain.measure(n_sessions, 1000, "batch", False, schema))


async def run_throughput(n_sessions: int, turns: int, concurrency: int, schema: str) -> None:
    """N sessions x T turns, C at a time, through one Agent on RedisDb."""
    durable = PostgresDb(db_url=POSTGRES_URL, schema=schema)
    hot = RedisDb(
        db_url=REDIS_URL, key_prefix=f"bench-{uuid.uuid4().hex[:8]}:", snapshot_to=durable
    )
    agent = Agent(model=ToolThenAnswer(), db=hot, tools=[add_task], session_state=initial_state(10))
    gate = asyncio.Semaphore(concurrency)

    async def session(i: int) -> None:
        async with gate:
            for _ in range(turns):
                await agent.arun("add", session_id=f"run-{i}")

    hot.round_trips.reset()
    start = time.perf_counter()
    await asyncio.gather(*(session(i) for i in range(n_sessions)))
    elapsed = time.perf_counter() - start
    trips = hot.round_trips.reset()
    total = n_sessions * turns
    sample = await agent.aget_session_state("run-0")
    assert len(sample["tasks"]) == 10 + turns, "every turn must have added one task"
    print(
        f"| {n_sessions:,} sessions x {turns} turns, {concurrency} at once | {total:,} turns "
        f"| {elapsed:.2f} s | {total / elapsed:,.0f} turns/s | "
        f"{trips / total:.1f} Redis round trips/turn |"
    )
    await hot.aclose()
    snapshotted = len(await durable.aload_many([f"run-{i}" for i in range(n_sessions)]))
    print(f"|  after close: sessions in PostgreSQL | {snapshotted:,} | | | |")
    await durable.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=50)
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        print("| what | size | time | throughput | notes |")
        print("|---|---:|---:|---:|---|")
        await snapshot_throughput(args.sessions, schema)
        await run_throughput(args.sessions, args.turns, args.concurrency, schema)
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    asyncio.run(main())
