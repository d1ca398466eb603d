"""Run leases in SQLite and PostgreSQL: what one lock costs, and one hot session shared.

    .venv/bin/python -m bench.sql_lease [--locks 500] [--runs 100] [--processes 1 2 4]

1. Uncontended: ``async with db.session_lock(...)`` entered and left N times in a row
   (acquire transaction + release transaction + the renewer task): locks per second.
2. One hot session: R tool runs (``agent.arun_tool``, one counter increment each),
   started at once, spread over P processes (P=1: two store instances in one
   process); time from "go" until the last run is done, and how many were kept.
Uses a temporary SQLite file and a fresh PostgreSQL schema, removed after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from core.db.postgres import PostgresDb
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_URL = os.environ.get(
    "STATEBOT_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)

# a worker: build the store, say "ready", wait for "go", run its share, print the errors
_WORKER = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {root!r})
    from bench.sql_lease import open_store, run_share

    async def main():
        stores = [open_store({spec!r}) for _ in range({instances})]
        await stores[0].aping()
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        print(await run_share(stores, {runs}), flush=True)
        for store in stores:
            await store.aclose()

    asyncio.run(main())
    """
)


def open_store(spec: dict[str, Any]) -> SqlDb:
    """A SqliteDb or PostgresDb from a plain dict."""
    if spec["kind"] == "sqlite":
        return SqliteDb(db_file=spec["db_file"])
    return PostgresDb(db_url=spec["db_url"], schema=spec["schema"])


def increment(session_state: dict[str, Any]) -> str:
    """Add one to the counter."""
    session_state["count"] = session_state.get("count", 0) + 1
    return str(session_state["count"])


async def run_share(stores: list[SqlDb], runs: int) -> int:
    """Start ``runs`` increments at once over ``stores``; the number that failed."""
    from core.agent import Agent

    agents = [Agent(id="counter", db=s, tools=[increment]) for s in stores]
    results = await asyncio.gather(
        *(agents[n % len(agents)].arun_tool("increment", {}, session_id="hot")
          for n in range(runs)),
        return_exceptions=True,
    )
    return sum(isinstance(r, BaseException) for r in results)


async def uncontended(spec: dict[str, Any], locks: int) -> None:
    """Enter and leave one session's lock ``locks`` times in a row."""
    store = open_store(spec)
    async with store.session_lock("warm-up"):
        pass
    start = time.perf_counter()
    for _ in range(locks):
        async with store.session_lock("solo"):
            pass
    elapsed = time.perf_counter() - start
    await store.aclose()
    print(
        f"| {spec['kind']} | uncontended lock+unlock | {locks} | {elapsed:.2f} s "
        f"| {locks / elapsed:,.0f} locks/s ({elapsed / locks * 1000:.2f} ms each) |"
    )


def hot_session(spec: dict[str, Any], runs: int, processes: int) -> None:
    """``runs`` concurrent runs on one session spread over ``processes`` processes."""
    instances = 2 if processes == 1 else 1
    script = _WORKER.format(
        root=str(ROOT), spec=spec, instances=instances, runs=runs // processes
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script], cwd=ROOT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        for _ in range(processes)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    start = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    failed = sum(int(proc.communicate(timeout=300)[0].strip() or "-1") for proc in procs)
    elapsed = time.perf_counter() - start

    async def count() -> int:
        store = open_store(spec)
        record = await store.aload("hot")
        await store.adelete("hot")
        await store.aclose()
        return 0 if record is None else int(record.state["count"])

    kept = asyncio.run(count())
    where = "1 process, 2 stores" if processes == 1 else f"{processes} processes"
    print(
        f"| {spec['kind']} | {runs} runs on one session, {where} | {elapsed:.2f} s "
        f"| {runs / elapsed:,.0f} runs/s | kept {kept}, refused {failed} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--locks", type=int, default=500)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    engine = sa.create_engine(POSTGRES_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            specs = [
                {"kind": "sqlite", "db_file": str(Path(tmp) / "lease.db")},
                {"kind": "postgres", "db_url": POSTGRES_URL, "schema": schema},
            ]
            print("| store | case | n | time | rate | outcome |\n|---|---|---|---|---|---|")
            for spec in specs:
                asyncio.run(uncontended(spec, args.locks))
            for spec in specs:
                for processes in args.processes:
                    hot_session(spec, args.runs, processes)
    finally:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


if __name__ == "__main__":
    main()
