"""Runs per second on ONE hot session versus the number of runs queued for it.

    .venv/bin/python -m bench.lease_waiters [--waiters 10,100,1000] [--max-connections 1000]
        [--notice]

W runs of one Agent (one tool call, two model turns each) are started at once on the
same session of a RedisDb, so W - 1 of them queue for its lease; the table shows how
fast the queue drains (runs/s), the most Redis connections the process held at any
moment (sampled every 5 ms), and the Redis round trips per run. Uses the machine's
Redis under a fresh key prefix, removed afterwards. ``--notice`` runs each one with a
"queued" listener (``core.db.lease_waits``, what chat turns install): the cost of
telling each waiter its place (one ZRANK when it joins the queue); the last column
counts the runs that heard they were queued.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid

import redis.asyncio as aioredis

from bench.workload import ToolThenAnswer, add_task, initial_state
from core.agent import Agent
from core.db import lease_waits
from core.db.redis import RedisDb

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


def connections(store: RedisDb) -> int:
    """Connections the store's pool holds now (idle or in use, pub/sub included)."""
    pool = store._clients.get().connection_pool
    return len(pool._available_connections) + len(pool._in_use_connections)  # type: ignore[attr-defined]


async def drain(waiters: int, max_connections: int, notice: bool = False) -> None:
    """Start ``waiters`` runs on one session at once and time until all are done."""
    prefix = f"bench-lease-{uuid.uuid4().hex[:8]}:"
    hot = RedisDb(db_url=REDIS_URL, key_prefix=prefix, max_connections=max_connections)
    if hasattr(hot.leases, "max_waiters"):
        hot.leases.max_waiters = None  # measure the queue, not the refusal
    agent = Agent(model=ToolThenAnswer(), db=hot, tools=[add_task], session_state=initial_state(10))
    await agent.arun("warm up", session_id="hot")  # connections and scripts loaded
    peak = 0
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, connections(hot))
            await asyncio.sleep(0.005)

    sampler = asyncio.create_task(sample())
    hot.round_trips.reset()
    start = time.perf_counter()
    heard: list[int] = []

    async def run_one() -> object:
        if not notice:
            return await agent.arun("add", session_id="hot")
        with lease_waits.on_queued(heard.append):
            return await agent.arun("add", session_id="hot")

    results = await asyncio.gather(*(run_one() for _ in range(waiters)), return_exceptions=True)
    elapsed = time.perf_counter() - start
    done.set()
    await sampler
    trips = hot.round_trips.reset()
    failed = [r for r in results if isinstance(r, BaseException)]
    state = await agent.aget_session_state("hot")
    print(
        f"| {waiters:,} | {elapsed:.2f} s | {(waiters - len(failed)) / elapsed:,.0f} runs/s "
        f"| {peak} | {trips / waiters:.1f} | {len(failed)} "
        f"({type(failed[0]).__name__ if failed else '-'}) | {len(state['tasks']) - 11} "
        f"| {len(heard) if notice else '-'} |"
    )
    await hot.aclose()
    client = aioredis.Redis.from_url(REDIS_URL)
    try:
        async for key in client.scan_iter(match=f"*{prefix}*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiters", default="10,100,1000")
    parser.add_argument("--max-connections", type=int, default=1000)
    parser.add_argument("--notice", action="store_true", help="a queued listener per run")
    args = parser.parse_args()
    print(
        "| queued runs | time | throughput | peak connections | round trips/run "
        "| failed | tasks added | told queued |"
    )
    print("|---:|---:|---:|---:|---:|---|---:|---:|")
    for waiters in (int(w) for w in args.waiters.split(",")):
        await drain(waiters, args.max_connections, args.notice)


if __name__ == "__main__":
    asyncio.run(main())
