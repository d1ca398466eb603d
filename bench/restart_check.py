"""What detecting a Redis restart costs per turn (issue: Redis behind the durable store).

Run:

    .venv/bin/python -m bench.restart_check --turns 2000

One turn = one direct tool call (``arun_tool``: lease, load, save, release) on one
existing session of a RedisDb that snapshots to SQLite. Reported per turn: round trips
(the store's own counter), wall time (median), and the time Redis itself spent on the
turn's commands (``INFO commandstats`` of a private redis-server the benchmark starts,
before and after, divided by turns).
Then the one-off cost of the first load after a restart (run-id mismatch: a durable
read and one repair script). It uses only the public API, so the same file can be run
against an older checkout to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from core.agent import Agent
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    """A redis-server of its own on a free port, so its command stats are this run's only."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            time.sleep(0.01)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait()


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Add a task."""
    session_state["tasks"].append(title)
    del session_state["tasks"][:-10]  # keep the state small and constant
    return "ok"


async def redis_usec(client: aioredis.Redis) -> dict[str, float]:
    """Microseconds Redis spent executing commands so far, per command."""
    stats = await client.info("commandstats")
    return {k: float(v["usec"]) for k, v in stats.items() if isinstance(v, dict)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    args = parser.parse_args()
    prefix = f"bench-restart:{uuid.uuid4().hex[:8]}:"
    with tempfile.TemporaryDirectory() as tmp, private_redis() as redis_url:
        durable = SqliteDb(db_file=Path(tmp) / "d.db")
        store = RedisDb(
            db_url=redis_url, key_prefix=prefix, snapshot_to=durable, run_snapshotter=False
        )
        agent = Agent(db=store, session_state={"tasks": []}, tools=[add_task], id="bench")
        raw = aioredis.Redis.from_url(redis_url)
        try:
            for _ in range(20):  # warm up: session, scripts, connections
                await agent.arun_tool("add_task", {"title": "t"}, session_id="s")
            store.round_trips.reset()
            before = await redis_usec(raw)
            times = []
            for _ in range(args.turns):
                start = time.perf_counter()
                await agent.arun_tool("add_task", {"title": "t"}, session_id="s")
                times.append(time.perf_counter() - start)
            after = await redis_usec(raw)
            by_command = {k: (after[k] - before.get(k, 0.0)) / args.turns for k in after}
            spent = sum(by_command.values())
            trips = store.round_trips.reset() / args.turns
            print(f"turns: {args.turns}")
            print(f"round trips/turn: {trips:.2f}")
            print(f"median turn: {statistics.median(times) * 1000:.3f} ms")
            print(f"Redis time/turn: {spent:.1f} µs")
            top = sorted(by_command.items(), key=lambda kv: -kv[1])[:4]
            print("  by command: " + ", ".join(f"{k[8:]} {v:.1f}" for k, v in top))
            # the first load after a restart: a session stamped by another run id
            repaired = 0.0
            if hasattr(store, "asnapshot_status"):  # only builds with the restart check
                for n in range(200):
                    sid = f"r{n}"
                    await agent.arun_tool("add_task", {"title": "t"}, session_id=sid)
                await store.aflush()
                meta_keys = [k async for k in raw.scan_iter(match=f"*{prefix}*:meta")]
                for key in meta_keys:
                    await raw.hset(key, "ep", "another-redis")
                store.round_trips.reset()
                start = time.perf_counter()
                for n in range(200):
                    await store.aload(f"r{n}")
                repaired = (time.perf_counter() - start) / 200
                print(
                    f"first load after a restart: {repaired * 1000:.3f} ms, "
                    f"{store.round_trips.reset() / 200:.2f} round trips "
                    "(then back to the common path)"
                )
        finally:
            await raw.aclose()
            await store.aclose()
            await durable.aclose()


if __name__ == "__main__":
    asyncio.run(main())
