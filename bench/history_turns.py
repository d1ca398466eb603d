"""Per-turn cost with run history sent to the model (10 stored runs, 3 sent) vs not sent.

Run:

    .venv/bin/python -m bench.history_turns --turns 200

One turn = two model turns with one tool call between them (``ScriptedModel``, no
HTTP), on a session that already holds 10 runs. Every run is recorded in the history
either way; "on" means ``add_history_to_context=True, num_history_runs=3``. Stores:
InMemoryDb, SqliteDb (temporary file) and RedisDb over SQLite (local Redis, own key
prefix, removed afterwards). Reported: median and p95 per turn, and Redis round trips
per turn (the store's own counter).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel, tool_call

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Add a task."""
    tasks = session_state.setdefault("tasks", [])
    tasks.append(title)
    del tasks[:-20]
    return f"Added task {len(tasks)}: {title}"


def turns_forever() -> Callable[..., Any]:
    """Model turns: a tool call, then an answer, again and again."""
    step = {"n": 0}

    def next_turn(_messages: Any, _tools: Any) -> Any:
        step["n"] += 1
        if step["n"] % 2:
            return tool_call("add_task", title=f"task {step['n']}")
        return f"Added task {step['n']} for you, anything else?"

    return next_turn


async def measure(db: BaseDb, history: bool, turns: int) -> tuple[float, float, float | None]:
    """(median ms, p95 ms, Redis round trips per turn) on a session with 10 runs."""
    factory = turns_forever()
    model = ScriptedModel([factory] * (2 * (turns + 10)))
    agent = Agent(
        model=model,
        db=db,
        tools=[add_task],
        add_history_to_context=history,
        num_history_runs=3,
        session_state={"tasks": []},
    )
    session = f"s-{uuid.uuid4().hex[:6]}"
    for n in range(10):
        await agent.arun(f"please add task {n}", session_id=session)
    counter = getattr(db, "round_trips", None)
    if counter is not None:
        counter.reset()
    times = []
    for n in range(turns):
        start = time.perf_counter()
        await agent.arun(f"please add task {n}", session_id=session)
        times.append((time.perf_counter() - start) * 1000)
    trips = counter.reset() / turns if counter is not None else None
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], trips


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    print("store        history  median ms   p95 ms  Redis round trips/turn")
    with tempfile.TemporaryDirectory() as tmp:
        stores: list[tuple[str, Callable[[], BaseDb]]] = [
            ("InMemoryDb", InMemoryDb),
            ("SqliteDb", lambda: SqliteDb(db_file=Path(tmp) / f"{uuid.uuid4().hex}.db")),
            (
                "RedisDb",
                lambda: RedisDb(
                    db_url=REDIS_URL,
                    key_prefix=f"bench-history:{uuid.uuid4().hex[:8]}:",
                    snapshot_to=SqliteDb(db_file=Path(tmp) / f"{uuid.uuid4().hex}.db"),
                ),
            ),
        ]
        for name, make in stores:
            for history in (False, True):
                db = make()
                try:
                    median, p95, trips = await measure(db, history, args.turns)
                finally:
                    if isinstance(db, RedisDb):
                        client = db._clients.get()
                        async for key in client.scan_iter(match=f"*{db.key_prefix}*"):
                            await client.delete(key)
                    await db.aclose()
                shown = "-" if trips is None else f"{trips:.1f}"
                label = "on (3)" if history else "off"
                print(f"{name:<12} {label:<8} {median:9.2f} {p95:8.2f}  {shown}")


if __name__ == "__main__":
    asyncio.run(main())
