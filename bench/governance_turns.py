"""Per-turn cost of state governance on a 1,000-task board: audit, schema, encryption.

Run:

    .venv/bin/python -m bench.governance_turns [--tasks 1000] [--turns 200]

One table, one run: each row times one agent turn (in-process model: a tool call, then
an answer) on a board of ``--tasks`` tasks, every variant taking its turn in rotation so
a drifting load on a shared machine weighs on all alike:

- **plain**: the turn without any governance: no schema, no encryption, and no audit
  entry (the audit trail is always on in the product; for this row only, the
  benchmark replaces the handle's entry builder with a no-op, which is what a save
  cost before the audit trail existed);
- **audit**: the product's default turn (an audit entry with the RFC 6902 diff and its
  inverse per save);
- **audit + schema**: with ``session_state_schema`` (a pydantic model, per-key checks);
- **audit + sealed**: with encryption at rest (``StateCipher``);
- **everything**: audit, schema and encryption together.

Two workloads: **append a task** (the big list gets one more task) and **complete a
task** (one task in the middle of the list changes status, back and forth).

Stores: RedisDb snapshotting to SQLite (the snapshotter not running: the turn's own
cost) and SqliteDb alone. CPU ms is this process's CPU time per turn
(``time.process_time``): steadier than wall time on a shared machine; it leaves out
Redis's and SQLite's own work.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Literal

from cryptography.fernet import Fernet
from pydantic import BaseModel

from bench.workload import (
    ToolThenAnswer,
    add_task,
    initial_state,
    print_ratio_rows,
    remove_redis_keys,
)
from core.agent import Agent
from core.db.base import BaseDb
from core.db.cipher import StateCipher
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.models.base import Message, Model, ModelResponse, ToolCall
from core.state.session import SessionHandle
from core.tools import Function

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
CIPHER = StateCipher([Fernet.generate_key().decode()])


class Task(BaseModel):
    id: int
    title: str
    status: Literal["open", "in_progress", "done"]


class Board(BaseModel):
    tasks: list[Task]
    categories: list[str]


def complete_task(run_context, task_id: int) -> str:  # run_context unannotated: injected by name
    """Mark a task done, or open again when it is done (one task changes).

    Args:
        task_id: The task's id.
    """
    task = run_context.session_state["tasks"][task_id - 1]
    task["status"] = "open" if task["status"] == "done" else "done"
    return f"Task #{task_id} is {task['status']}."


class CompleteThenAnswer(Model):
    """A ``complete_task`` call on the middle task, then an answer."""

    id = "complete-then-answer"

    def __init__(self, task_id: int) -> None:
        self.arguments = f'{{"task_id": {task_id}}}'

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        if messages[-1].role == "tool":
            return ModelResponse(content="Done.")
        call = ToolCall(id="call_1", name="complete_task", arguments=self.arguments)
        return ModelResponse(tool_calls=(call,))


#: variant -> (audit on, schema, sealed)
VARIANTS: dict[str, tuple[bool, type[BaseModel] | None, bool]] = {
    "plain": (False, None, False),
    "audit": (True, None, False),
    "audit + schema": (True, Board, False),
    "audit + sealed": (True, None, True),
    "everything": (True, Board, True),
}


@contextlib.contextmanager
def audit_off() -> Iterator[None]:
    """For the plain row only: saves build no audit entry (the cost before the trail)."""
    original = SessionHandle._audit_entry
    SessionHandle._audit_entry = lambda *args, **kwargs: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        SessionHandle._audit_entry = original  # type: ignore[method-assign]


PREFIX = f"bench-governance-{uuid.uuid4().hex[:8]}:"


def stores(tmp: str) -> dict[str, Callable[[StateCipher | None], BaseDb]]:
    """Store factories taking the cipher (None: plain)."""

    def redis(cipher: StateCipher | None) -> BaseDb:
        return RedisDb(
            db_url=REDIS_URL,
            key_prefix=PREFIX,
            snapshot_to=SqliteDb(db_file=f"{tmp}/snap-{uuid.uuid4().hex}.db", cipher=cipher),
            cipher=cipher,
        )

    def sqlite(cipher: StateCipher | None) -> BaseDb:
        return SqliteDb(db_file=f"{tmp}/{uuid.uuid4().hex}.db", cipher=cipher)

    return {"RedisDb": redis, "SqliteDb": sqlite}


async def compare(
    store: str, make: Callable[[StateCipher | None], BaseDb], workload: str, tasks: int, turns: int
) -> None:
    """Interleaved turns of every variant on one store; prints one row per variant."""
    dbs: list[BaseDb] = []
    agents: list[Agent] = []
    for _audit, schema, sealed in VARIANTS.values():
        db = make(CIPHER if sealed else None)
        if workload == "append a task":
            model: Model = ToolThenAnswer()
            tool = Function(add_task)
        else:
            model = CompleteThenAnswer(tasks // 2)
            tool = Function(complete_task)
        dbs.append(db)
        agents.append(
            Agent(
                model=model,
                db=db,
                tools=[tool],
                session_state=initial_state(tasks),
                session_state_schema=schema,
            )
        )
    sessions = [f"s-{uuid.uuid4().hex}" for _ in VARIANTS]
    wall: list[list[float]] = [[] for _ in VARIANTS]
    cpu: list[list[float]] = [[] for _ in VARIANTS]
    audits = [audit for audit, _schema, _sealed in VARIANTS.values()]
    for i in range(-min(5, turns), turns):  # untimed turns first
        for agent, session, audit, timed, used in zip(
            agents, sessions, audits, wall, cpu, strict=True
        ):
            with contextlib.nullcontext() if audit else audit_off():
                start, start_cpu = time.perf_counter(), time.process_time()
                out = await agent.arun("go", session_id=session)
                elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            if i >= 0:
                timed.append(elapsed)
                used.append(elapsed_cpu)
            assert not any(t.error for t in out.tools), out.tools
    print_ratio_rows(store, workload, list(VARIANTS), wall, cpu)
    for db in dbs:
        await db.aclose()
        snapshot_to = getattr(db, "snapshot_to", None)
        if snapshot_to is not None:
            await snapshot_to.aclose()


async def main(tasks: int, turns: int) -> None:
    print(f"\n## Per-turn cost of governance, {tasks:,}-task board ({turns} turns each)\n")
    print("| store | turn | governance | median ms | p95 ms | vs plain | CPU ms | CPU vs plain |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for store, make in stores(tmp).items():
            for workload in ("append a task", "complete a task"):
                await compare(store, make, workload, tasks, turns)
    await remove_redis_keys(REDIS_URL, PREFIX)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000, help="tasks on the board")
    parser.add_argument("--turns", type=int, default=200, help="timed turns per variant")
    args = parser.parse_args()
    asyncio.run(main(args.tasks, args.turns))
