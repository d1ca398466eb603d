"""Per-turn cost of state encryption at rest: a 1,000-task board, plain and sealed.

Run:

    .venv/bin/python -m bench.encryption_turns [--tasks 1000] [--turns 200]

Each row times one agent turn (in-process model: a tool call, then an answer) on a
board of ``--tasks`` tasks; the plain and the sealed agent take turns, so a drifting
load on a shared machine weighs on both alike. Stores: RedisDb snapshotting to SQLite
(the snapshotter not running: the turn's own cost), and SqliteDb alone. Workloads:

- **append a task**: the changed key is the big task list, sealed anew every turn;
- **bump a counter**: one small key changes beside the big list;
- **two processes**: two store objects (as two bot processes) take turns on one
  session, so every turn misses the per-process cache and loads (opens) the whole
  state, then appends a task;
- **two processes, wide**: the same with the tasks as 1,000 top-level keys (one
  sealed value each, so a load opens 1,000 values), bumping a counter.

CPU ms is this process's CPU time per turn (``time.process_time``): steadier than wall
time on a shared machine, and where sealing and opening show; it leaves out Redis's
and SQLite's I/O waits.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from typing import Any

from cryptography.fernet import Fernet

from bench.workload import (
    BumpThenAnswer,
    ToolThenAnswer,
    add_task,
    bump,
    initial_state,
    print_ratio_rows,
    remove_redis_keys,
)
from core.agent import Agent
from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.tools import Function

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
CIPHER = StateCipher([Fernet.generate_key().decode()])
PREFIX = f"bench-crypto-{uuid.uuid4().hex[:8]}:"

Factory = Callable[[StateCipher | None, str], BaseDb]


WORKLOADS = ("append a task", "bump a counter", "two processes", "two processes, wide")


def wide_state(n_tasks: int) -> dict[str, Any]:
    """The board's tasks as ``n_tasks`` top-level keys."""
    return {f"task{i + 1}": task for i, task in enumerate(initial_state(n_tasks)["tasks"])}


def stores(tmp: str) -> dict[str, Factory]:
    """Store factories: (cipher, database file name) -> a store."""

    def redis(cipher: StateCipher | None, name: str) -> BaseDb:
        return RedisDb(
            db_url=REDIS_URL,
            key_prefix=PREFIX,
            snapshot_to=SqliteDb(db_file=f"{tmp}/{name}", cipher=cipher),
            run_snapshotter=False,
            cipher=cipher,
        )

    return {
        "RedisDb": redis,
        "SqliteDb": lambda cipher, name: SqliteDb(db_file=f"{tmp}/{name}", cipher=cipher),
    }


async def compare(store: str, make: Factory, workload: str, tasks: int, turns: int) -> None:
    """Interleaved turns, plain and sealed, on one store kind; one row per variant."""
    wide = workload == "two processes, wide"
    bumping = workload == "bump a counter" or wide
    tool = Function(bump, name="bump") if bumping else Function(add_task)
    variants = {"plain": None, "sealed": CIPHER}
    processes = 2 if workload.startswith("two processes") else 1
    start_state = wide_state(tasks) if wide else initial_state(tasks)
    agents: list[list[Agent]] = []
    opened: list[BaseDb] = []
    for cipher in variants.values():
        name = f"{uuid.uuid4().hex}.db"
        dbs = [make(cipher, name) for _ in range(processes)]
        opened += dbs
        agents.append(
            [
                Agent(
                    model=BumpThenAnswer() if bumping else ToolThenAnswer(),
                    db=db,
                    tools=[tool],
                    session_state=start_state,
                )
                for db in dbs
            ]
        )
    sessions = [f"s-{uuid.uuid4().hex}" for _ in variants]
    samples: list[list[float]] = [[] for _ in variants]
    cpu: list[list[float]] = [[] for _ in variants]
    for i in range(-5, turns):  # 5 untimed turns first
        for pair, session, timed, used in zip(agents, sessions, samples, cpu, strict=True):
            agent = pair[i % processes]
            start, start_cpu = time.perf_counter(), time.process_time()
            out = await agent.arun("go", session_id=session)
            if i >= 0:
                timed.append(time.perf_counter() - start)
                used.append(time.process_time() - start_cpu)
            assert not any(t.error for t in out.tools), out.tools
    print_ratio_rows(store, workload, list(variants), samples, cpu)
    for db in opened:
        await db.aclose()
    for db in opened:
        snapshot_to = getattr(db, "snapshot_to", None)
        if snapshot_to is not None:
            await snapshot_to.aclose()


async def main(tasks: int, turns: int) -> None:
    print(f"\n## Per-turn cost with state encryption, {tasks:,}-task board ({turns} turns each)\n")
    print("| store | turn | state | median ms | p95 ms | vs plain | CPU ms | CPU vs plain |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for store, make in stores(tmp).items():
            for workload in WORKLOADS:
                await compare(store, make, workload, tasks, turns)
    await remove_redis_keys(REDIS_URL, PREFIX)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000, help="tasks on the board")
    parser.add_argument("--turns", type=int, default=200, help="timed turns per variant")
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.turns))
