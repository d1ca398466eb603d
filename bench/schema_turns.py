"""Per-turn cost of typed session state: a 1,000-task board with and without a schema.

Run:

    .venv/bin/python -m bench.schema_turns [--tasks 1000] [--turns 200]

Each row times one agent turn (in-process model: a tool call, then an answer) on a
board of ``--tasks`` tasks, with three agents taking turns so a drifting load on a
shared machine weighs on all alike:

- **plain**: no schema;
- **schema**: ``session_state_schema=Board`` (a pydantic model), checked per changed
  key (the shape the ready taskboard uses);
- **schema, whole**: the same model plus a ``model_validator``, which makes every
  change check the whole state.

Two workloads: the tool appends a task to the big list (the changed key is the big
one, so its 1,000 tasks are validated every turn), and the tool bumps a small counter
beside the big list (per-key checking validates only the counter).

Wall time (median, p95) and this process's CPU time per turn (median, from
``time.process_time``: on a busy shared machine it moves less than wall time; it
leaves out Redis's own work).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, model_validator

from bench.workload import (
    BumpThenAnswer,
    ToolThenAnswer,
    add_task,
    bump,
    initial_state,
    print_ratio_rows,
)
from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.models.base import Model
from core.tools import Function

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


class Task(BaseModel):
    id: int
    title: str
    status: Literal["open", "in_progress", "done"]


class Board(BaseModel):
    tasks: list[Task]
    categories: list[str]
    visits: int = 0


class CheckedBoard(Board):
    @model_validator(mode="after")
    def ids_unique(self) -> CheckedBoard:
        """A rule across the board: forces the whole-state check."""
        if len({t.id for t in self.tasks}) != len(self.tasks):
            raise ValueError("task ids must be unique")
        return self


def stores(tmp: str) -> dict[str, Callable[[], BaseDb]]:
    prefix = f"bench-schema-{uuid.uuid4().hex[:8]}:"
    return {
        "InMemoryDb": InMemoryDb,
        "RedisDb": lambda: RedisDb(
            db_url=REDIS_URL,
            key_prefix=prefix,
            snapshot_to=SqliteDb(db_file=f"{tmp}/snap-{uuid.uuid4().hex}.db"),
        ),
    }


VARIANTS: dict[str, type[BaseModel] | None] = {
    "plain": None,
    "schema": Board,
    "schema, whole": CheckedBoard,
}


async def compare(
    store: str, make: Callable[[], BaseDb], workload: str, tasks: int, turns: int
) -> None:
    """Interleaved turns of the three variants on one store; prints one row per variant."""
    if workload == "append a task":
        model_of: Callable[[], Model] = ToolThenAnswer
        tool = Function(add_task)
    else:
        model_of = BumpThenAnswer
        tool = Function(bump, name="bump")
    dbs = [make() for _ in VARIANTS]
    agents = [
        Agent(
            model=model_of(),
            db=db,
            tools=[tool],
            session_state=initial_state(tasks),
            session_state_schema=schema,
        )
        for db, schema in zip(dbs, VARIANTS.values(), strict=True)
    ]
    sessions = [f"s-{uuid.uuid4().hex}" for _ in VARIANTS]
    samples: list[list[float]] = [[] for _ in VARIANTS]
    cpu: list[list[float]] = [[] for _ in VARIANTS]
    for i in range(-min(5, turns), turns):  # untimed turns first
        for agent, session, timed, used in zip(agents, sessions, samples, cpu, strict=True):
            start, start_cpu = time.perf_counter(), time.process_time()
            out = await agent.arun("go", session_id=session)
            if i >= 0:
                timed.append(time.perf_counter() - start)
                used.append(time.process_time() - start_cpu)
            assert not any(t.error for t in out.tools), out.tools
    print_ratio_rows(store, workload, list(VARIANTS), samples, cpu)
    for db in dbs:
        await db.aclose()


async def main(tasks: int, turns: int) -> None:
    print(f"\n## Per-turn cost with a schema, {tasks:,}-task board ({turns} turns each)\n")
    print("| store | turn | state | median ms | p95 ms | vs plain | CPU ms | CPU vs plain |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for store, make in stores(tmp).items():
            for workload in ("append a task", "bump a counter"):
                await compare(store, make, workload, tasks, turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000, help="tasks on the board")
    parser.add_argument("--turns", type=int, default=200, help="timed turns per variant")
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.turns))
