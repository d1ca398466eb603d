"""What the agent runtime costs on its own: construction, and each run around the model.

    .venv/bin/python -m bench.agent_overhead [--runs 200] [--big-runs 50] [--items 10000]

The model is a ScriptedModel, so the time measured is the runtime's: opening the
session (load), building the system message twice, validating and running one tool
call, tracking changes, saving after the tool batch and at the end. Each run is one
tool call and two model turns. Three stores (no db, InMemoryDb, SqliteDb) times three
states:

- small:       a handful of keys; the tool changes one of them
- 10k, small change: plus a 10,000-item list; the tool changes a small key
- 10k, list change:  the tool appends to the 10,000-item list itself

Results are printed as a table; times are per run, in milliseconds (median and p95
over the measured runs, after warm-up runs that create the session).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.models.base import ToolCall
from core.testing import ScriptedModel, tool_call
from tools.taskboard import create_agent as create_taskboard

SESSION = "bench-session"
WARMUP_RUNS = 3


def record(session_state: dict[str, Any], note: str) -> str:
    """Remember a note (changes two small keys).

    Args:
        note: Any text.
    """
    session_state["count"] = session_state.get("count", 0) + 1
    session_state["last_note"] = note
    return f"noted #{session_state['count']}"


def append(session_state: dict[str, Any], note: str) -> str:
    """Append a note to the big list (changes the large key).

    Args:
        note: Any text.
    """
    session_state.setdefault("items", []).append({"id": len(session_state["items"]), "note": note})
    return f"{len(session_state['items'])} items"


def small_state() -> dict[str, Any]:
    """A state like a chat board's: a few keys, a few entries."""
    return {
        "count": 0,
        "last_note": "",
        "tags": ["general", "work", "personal"],
        "items": [{"id": i, "note": f"item {i}"} for i in range(5)],
    }


def big_state(items: int) -> dict[str, Any]:
    """The small state with ``items`` entries in its list."""
    state = small_state()
    state["items"] = [{"id": i, "note": f"item {i}", "done": i % 3 == 0} for i in range(items)]
    return state


@dataclass(frozen=True, slots=True)
class Case:
    """One row of the run table."""

    store: str
    state: str
    tool: str
    make_state: Callable[[], dict[str, Any]]


def script(runs: int, tool: str) -> list[ToolCall | str]:
    """Two turns per run: one tool call, then the answer."""
    turns: list[ToolCall | str] = []
    for i in range(runs):
        turns.append(tool_call(tool, note=f"note {i}"))
        turns.append("done")
    return turns


def make_db(store: str, workdir: Path) -> BaseDb | None:
    """The store named in a case; SqliteDb gets a fresh file."""
    if store == "no db":
        return None
    if store == "InMemoryDb":
        return InMemoryDb()
    from core.db.sqlite import SqliteDb

    return SqliteDb(db_file=str(workdir / f"bench-{time.monotonic_ns()}.db"))


def percentile(samples: list[float], fraction: float) -> float:
    """The nearest-rank percentile of the samples."""
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


async def measure_runs(case: Case, runs: int, workdir: Path) -> tuple[float, float, float]:
    """(median ms, p95 ms, traced peak KiB of one run) for one case."""
    model = ScriptedModel(script(WARMUP_RUNS + runs + 1, case.tool))
    db = make_db(case.store, workdir)
    agent = Agent(model, db=db, tools=[record, append], session_state=case.make_state())
    for _ in range(WARMUP_RUNS):
        await agent.arun("go", session_id=SESSION)
    samples = []
    gc.collect()
    for _ in range(runs):
        started = time.perf_counter()
        await agent.arun("go", session_id=SESSION)
        samples.append((time.perf_counter() - started) * 1000)
    tracemalloc.start()
    await agent.arun("go", session_id=SESSION)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    if db is not None:
        await db.aclose()
    return statistics.median(samples), percentile(samples, 0.95), peak / 1024


def measure_construction(build: Callable[[], Agent], count: int) -> tuple[float, float, float]:
    """(median µs per construction, p95 µs, KiB retained per agent)."""
    build()  # first build pays for imports and schema caches; not what we measure
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        build()
        samples.append((time.perf_counter() - started) * 1e6)
    gc.collect()
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    kept = [build() for _ in range(count)]
    after, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    retained = (after - before) / len(kept) / 1024
    return statistics.median(samples), percentile(samples, 0.95), retained


def cases(items: int) -> list[Case]:
    """Every store with every state."""
    states = [
        ("small", "record", small_state),
        (f"{items:,} items, small change", "record", lambda: big_state(items)),
        (f"{items:,} items, list change", "append", lambda: big_state(items)),
    ]
    return [
        Case(store, state, tool, make)
        for state, tool, make in states
        for store in ("no db", "InMemoryDb", "SqliteDb")
    ]


def _one_tool_agent() -> Agent:
    return Agent(tools=[record])


async def main(argv: list[str] | None = None) -> None:
    """Run every measurement and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=200, help="measured runs per small-state case")
    parser.add_argument("--big-runs", type=int, default=50, help="measured runs per big-state case")
    parser.add_argument("--items", type=int, default=10_000, help="items in the big state")
    parser.add_argument("--constructions", type=int, default=200, help="agents built per row")
    args = parser.parse_args(argv)
    for name, value in vars(args).items():
        if value < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1 (got {value})")

    print(f"Python {platform.python_version()} on {platform.machine()}, {_cpus()} CPUs")
    print()
    print(f"Agent construction ({args.constructions} each)")
    print(f"{'agent':<34} {'median µs':>10} {'p95 µs':>10} {'KiB/agent':>10}")
    for label, build in (
        ("Agent(tools=[one function])", _one_tool_agent),
        ("taskboard create_agent() (5 tools)", create_taskboard),
    ):
        median, p95, kib = measure_construction(build, args.constructions)
        print(f"{label:<34} {median:>10.1f} {p95:>10.1f} {kib:>10.1f}")

    print()
    print("Per run: 1 tool call, 2 model turns (ScriptedModel)")
    print(
        f"{'store':<11} {'state':<30} {'runs':>5} {'median ms':>10} {'p95 ms':>8} {'peak KiB':>9}"
    )
    with tempfile.TemporaryDirectory(prefix="statebot-bench-") as tmp:
        for case in cases(args.items):
            runs = args.runs if case.state == "small" else args.big_runs
            median, p95, peak = await measure_runs(case, runs, Path(tmp))
            print(
                f"{case.store:<11} {case.state:<30} {runs:>5} {median:>10.2f} {p95:>8.2f}"
                f" {peak:>9.0f}"
            )


def _cpus() -> int | str:
    return os.cpu_count() or "?"


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
