"""Run leases in SQLite and PostgreSQL: FIFO across store instances and processes.

Every test runs on SQLite (a file under tmp_path) and on the real PostgreSQL (a fresh
schema). Leases are short (``lock_ttl=0.6``) so expiry tests stay fast.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.codec import encode_delta as texts
from core.db.postgres import PostgresDb
from core.db.sql.store import SqlDb
from core.db.sqlite import SqliteDb
from core.exceptions import LeaseLostError, LockTimeoutError, SessionBusyError, StaleVersionError

ROOT = Path(__file__).resolve().parents[2]

Spec = dict[str, Any]


def open_store(spec: Spec, **options: Any) -> SqlDb:
    """A SqliteDb or PostgresDb from a plain dict (so a subprocess can build one too)."""
    options = {**spec.get("options", {}), **options}
    if spec["kind"] == "sqlite":
        return SqliteDb(db_file=spec["db_file"], **options)
    return PostgresDb(db_url=spec["db_url"], schema=spec["schema"], **options)


@pytest.fixture(params=["sqlite", "postgres"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> Spec:
    """Where the stores of one test live: a SQLite file or a PostgreSQL schema."""
    if request.param == "sqlite":
        return {"kind": "sqlite", "db_file": str(tmp_path / "lease.db")}
    url, schema = request.getfixturevalue("postgres_schema")
    return {"kind": "postgres", "db_url": url, "schema": schema}


@pytest.fixture
async def db(spec: Spec) -> AsyncIterator[SqlDb]:
    """A store with a short lease so expiry tests stay fast."""
    store = open_store(spec, lock_ttl=0.6)
    yield store
    await store.aclose()


def increment(session_state: dict[str, Any]) -> str:
    """Add one to the counter."""
    session_state["count"] = session_state.get("count", 0) + 1
    return str(session_state["count"])


def counter_agent(store: SqlDb) -> Agent:
    """An agent whose only tool increments ``count`` in the session state."""
    return Agent(id="counter", db=store, tools=[increment], session_state={"count": 0})


async def run_increments(agents: list[Agent], session_id: str, runs: int) -> list[BaseException]:
    """``runs`` concurrent direct tool runs on one session, spread over ``agents``."""
    results = await asyncio.gather(
        *(
            agents[n % len(agents)].arun_tool("increment", {}, session_id=session_id)
            for n in range(runs)
        ),
        return_exceptions=True,
    )
    return [r for r in results if isinstance(r, BaseException)]


async def append_once(store: SqlDb, session_id: str, item: object) -> None:
    """One run: lock, load, append, save under the lease."""
    async with store.session_lock(session_id, timeout=30) as lease:
        record = await store.aload(session_id)
        items = list(record.state.get("items", [])) if record else []
        items.append(item)
        await store.asave(
            session_id,
            expected_version=record.version if record else 0,
            changed=texts({"items": items}),
            lease=lease,
        )


def _script(spec: Spec, body: str) -> str:
    """A Python program that builds a store from ``spec`` and runs ``body`` (async)."""
    header = textwrap.dedent(
        f"""\
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        # a watchdog: a process its test failed to kill exits by itself
        import os, threading
        _dog = threading.Timer(120, os._exit, (3,)); _dog.daemon = True; _dog.start()
        from tests.db.test_sql_lease import *

        async def main(store, arg):
        """
    )
    footer = f"store = open_store({spec!r}, lock_ttl=0.6)\nasyncio.run(main(store, sys.argv[1]))\n"
    return header + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n\n" + footer


@pytest.mark.slow
@pytest.mark.parametrize("processes", [2, 4])
async def test_hundred_runs_across_processes_are_all_kept(spec: Spec, processes: int) -> None:
    """100 concurrent tool runs on one session from 2 or 4 processes: 100 kept, 0 refused."""
    body = """
        errors = await run_increments([counter_agent(store)], "shared", int(arg))
        await store.aclose()
        print(f"refused {len(errors)}", *{type(e).__name__ for e in errors}, flush=True)
    """
    script = _script(spec, body)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(100 // processes)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    outputs = [p.communicate(timeout=90)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0] * processes
    # the result is each program's last line: a lease renewed late on a loaded machine
    # logs a warning before it (fencing keeps every write, as the count below shows)
    assert [out.splitlines()[-1] for out in outputs] == ["refused 0"] * processes
    store = open_store(spec)
    record = await store.aload("shared")
    await store.aclose()
    assert record is not None and record.state["count"] == 100 and record.version == 100


async def test_two_agents_on_two_store_instances_in_one_process(spec: Spec) -> None:
    """Two Agents, each with its own store on one database: 100 runs kept, 0 refused."""
    first, second = open_store(spec), open_store(spec)
    try:
        agents = [counter_agent(first), counter_agent(second)]
        assert await run_increments(agents, "pair", 100) == []
        assert (await agents[0].aget_session_state("pair"))["count"] == 100
    finally:
        await first.aclose()
        await second.aclose()


async def test_waiters_are_served_in_arrival_order(spec: Spec) -> None:
    """Runs queued through two store instances get the lease in the order they arrived."""
    first, second = open_store(spec, lock_ttl=5), open_store(spec, lock_ttl=5)
    order: list[int] = []
    holder = await first.leases.acquire("fifo", timeout=5)

    async def run(n: int) -> None:
        async with (first, second)[n % 2].session_lock("fifo", timeout=10):
            order.append(n)

    tasks = []
    for n in range(8):
        tasks.append(asyncio.create_task(run(n)))
        while await first.leases.waiting("fifo") < n + 1:  # n+1 tickets queued
            await asyncio.sleep(0.005)
    await first.leases.release(holder)
    await asyncio.gather(*tasks)
    assert order == list(range(8))
    await first.aclose()
    await second.aclose()


async def test_lock_timeout_is_clear_and_leaves_no_ticket(db: SqlDb) -> None:
    """A wait past the timeout raises LockTimeoutError saying nothing changed; no ticket left."""
    async with db.session_lock("busy", timeout=5):
        with pytest.raises(LockTimeoutError, match=r"'busy' stayed busy for more than 0\.2s"):
            async with db.session_lock("busy", timeout=0.2):
                pass
        assert await db.leases.waiting("busy") == 0
    async with db.session_lock("busy", timeout=1) as lease:
        assert lease.token


async def test_lock_timeout_message_says_nothing_changed(db: SqlDb) -> None:
    """The LockTimeoutError message tells the user nothing was changed."""
    holder = await db.leases.acquire("t", timeout=5)
    with pytest.raises(LockTimeoutError, match="nothing was changed"):
        await db.leases.acquire("t", timeout=0.1)
    await db.leases.release(holder)


async def test_cancelled_waiter_leaves_no_ticket(db: SqlDb) -> None:
    """A waiter cancelled while queued takes its ticket out of the queue."""
    holder = await db.leases.acquire("c", timeout=5)
    waiter = asyncio.create_task(db.leases.acquire("c", timeout=10))
    while await db.leases.waiting("c") < 1:
        await asyncio.sleep(0.005)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert await db.leases.waiting("c") == 0
    await db.leases.release(holder)
    async with db.session_lock("c", timeout=1) as lease:
        assert lease.token


async def test_dead_holder_loses_lease_and_its_late_write_is_fenced(db: SqlDb) -> None:
    """A holder that stops renewing loses the lease; the next run proceeds; its write fails."""
    await db.asave("d", expected_version=0, changed=texts({"items": []}))
    dead = await db.leases.acquire("d", timeout=5)  # held without renewal: a "dead" holder
    await append_once(db, "d", "next run")  # waits for the lease to expire, then proceeds
    with pytest.raises(LeaseLostError, match="nothing was written") as caught:
        await db.asave("d", expected_version=2, changed=texts({"items": ["late"]}), lease=dead)
    assert isinstance(caught.value, StaleVersionError)
    record = await db.aload("d")
    assert record is not None and record.state == {"items": ["next run"]}
    assert [e.version for e in await db.ahistory("d")] == [2, 1]


async def test_fencing_refuses_a_taken_over_lease_even_with_current_version(db: SqlDb) -> None:
    """A save under a lease now held by another run fails although its version matches."""
    await db.asave("f", expected_version=0, changed=texts({"n": 0}))
    stale = await db.leases.acquire("f", timeout=5)
    async with db.session_lock("f", timeout=5):  # taken over after expiry
        with pytest.raises(LeaseLostError):
            await db.asave("f", expected_version=1, changed=texts({"n": 1}), lease=stale)
    record = await db.aload("f")
    assert record is not None and record.version == 1 and record.state == {"n": 0}


async def test_fencing_refuses_an_expired_lease_nobody_took(db: SqlDb) -> None:
    """A save under a lease that expired (not taken over) is refused, as on Redis."""
    await db.asave("e", expected_version=0, changed=texts({"n": 0}))
    lease = await db.leases.acquire("e", timeout=5)
    await asyncio.sleep(db.leases.lock_ttl * 1.5)
    with pytest.raises(LeaseLostError, match="'e'"):
        await db.asave("e", expected_version=1, changed=texts({"n": 1}), lease=lease)
    record = await db.aload("e")
    assert record is not None and record.version == 1


async def test_live_holder_keeps_its_lease_past_the_ttl(spec: Spec) -> None:
    """A live holder renews in the background, so a long run keeps the lease and saves.

    Its own store with a 2 s lease: renewals come every third of it, so only an event
    loop stalled for over a second (a loaded machine) could let the lease lapse; the
    0.6 s lease of the other tests made this one fail under load.
    """
    db = open_store(spec, lock_ttl=2.0)
    try:
        await db.asave("l", expected_version=0, changed=texts({"n": 0}))
        async with db.session_lock("l", timeout=10) as lease:
            with pytest.raises(LockTimeoutError):
                async with db.session_lock("l", timeout=db.leases.lock_ttl * 2):
                    pass
            saved = await db.asave("l", expected_version=1, changed=texts({"n": 1}), lease=lease)
            assert saved == 2
    finally:
        await db.aclose()


async def test_released_lease_is_free_for_the_next_run(db: SqlDb) -> None:
    """After a release a new run takes the lease at once; renewing a released lease fails."""
    lease = await db.leases.acquire("r", timeout=1)
    assert await db.leases.renew(lease) is True
    assert await db.leases.release(lease) is True
    assert await db.leases.release(lease) is False
    assert await db.leases.renew(lease) is False
    again = await db.leases.acquire("r", timeout=0.5)
    assert again.token != lease.token
    await db.leases.release(again)


async def test_different_sessions_do_not_wait_for_each_other(db: SqlDb) -> None:
    """A held lease on one session never delays a run of another session."""
    async with db.session_lock("one", timeout=1), db.session_lock("two", timeout=0.5) as lease:
        assert lease.session_id == "two"


def _hold_script(spec: Spec, session_id: str, wait: bool) -> str:
    """A process that takes (or queues for) a session's lease, says so, then sleeps."""
    body = f"""
        store.leases.stale = 1.0
        if {wait!r}:
            task = asyncio.create_task(store.leases.acquire({session_id!r}, timeout=60))
            while await store.leases.waiting({session_id!r}) < 2:
                await asyncio.sleep(0.005)
            print("queued", flush=True)
            await task
        else:
            async with store.session_lock({session_id!r}):
                print("holding", flush=True)
                await asyncio.sleep(60)
    """
    return _script(spec, body)


async def _line(proc: subprocess.Popen[str]) -> str:
    """The next line a subprocess prints, read without blocking this event loop."""
    assert proc.stdout is not None
    return (await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)).strip()


async def test_holder_process_killed_lease_expires_and_next_run_proceeds(
    db: SqlDb, spec: Spec
) -> None:
    """kill -9 of the process holding the lease: after the TTL the next run gets it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _hold_script(spec, "k", wait=False), "-"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert await _line(proc) == "holding"
    proc.kill()
    proc.wait(timeout=10)
    assert proc.stdout is not None
    proc.stdout.close()
    await asyncio.wait_for(append_once(db, "k", "after the crash"), timeout=10)
    record = await db.aload("k")
    assert record is not None and record.state == {"items": ["after the crash"]}


async def test_waiter_process_killed_does_not_block_the_queue(spec: Spec) -> None:
    """A process that died while queued is skipped; the waiter behind it gets the lease."""
    db = open_store(spec, lock_ttl=30)  # only releases move the queue here
    db.leases.stale = 1.0
    holder = await db.leases.acquire("w", timeout=5)
    first = asyncio.create_task(db.leases.acquire("w", timeout=30))
    while await db.leases.waiting("w") < 1:
        await asyncio.sleep(0.005)
    proc = subprocess.Popen(
        [sys.executable, "-c", _hold_script(spec, "w", wait=True), "-"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert await _line(proc) == "queued"
    proc.kill()
    proc.wait(timeout=10)
    assert proc.stdout is not None
    proc.stdout.close()
    behind = asyncio.create_task(append_once(db, "w", "behind the dead waiter"))
    while await db.leases.waiting("w") < 3:
        await asyncio.sleep(0.005)
    await db.leases.release(holder)
    await db.leases.release(await asyncio.wait_for(first, timeout=10))
    await asyncio.wait_for(behind, timeout=10)
    record = await db.aload("w")
    assert record is not None and record.state == {"items": ["behind the dead waiter"]}
    assert await db.leases.waiting("w") == 0
    await db.aclose()


async def test_waiters_past_the_bound_are_refused_at_once(spec: Spec) -> None:
    """With max_waiters tickets queued (any store instance), the next run gets SessionBusyError."""
    first, second = open_store(spec, lock_ttl=5), open_store(spec, lock_ttl=5)
    first.max_waiters = second.max_waiters = 2
    holder = await first.leases.acquire("b", timeout=5)
    queued = [
        asyncio.create_task(store.leases.acquire("b", timeout=10, max_waiters=2))
        for store in (first, second)
    ]
    while await first.leases.waiting("b") < 2:
        await asyncio.sleep(0.005)
    with pytest.raises(SessionBusyError, match="2 requests are already waiting"):
        async with second.session_lock("b", timeout=5):
            pass
    assert await first.leases.waiting("b") == 2  # the refused run left no ticket
    await first.leases.release(holder)
    for task, store in zip(queued, (first, second), strict=True):
        await store.leases.release(await asyncio.wait_for(task, timeout=10))
    await first.aclose()
    await second.aclose()


async def test_lease_is_not_renewed_past_the_run_deadline(db: SqlDb) -> None:
    """A holder whose run deadline passed lets the lease go; the next run gets in."""
    async with db.session_lock("h", timeout=5) as lease:
        lease.renew_until = time.monotonic() + 0.1  # the run's deadline
        async with db.session_lock("h", timeout=5) as next_lease:  # would wait forever
            assert next_lease.token != lease.token
        with pytest.raises(LeaseLostError):
            await db.asave("h", expected_version=0, changed=texts({"late": True}), lease=lease)
    assert await db.aload("h") is None


async def test_waiters_hold_no_pool_connection(postgres_schema: tuple[str, str]) -> None:
    """40 runs queued on one session through a pool of 2 connections all complete."""
    url, schema = postgres_schema
    store = PostgresDb(db_url=url, schema=schema, pool_size=2, max_overflow=0, pool_timeout=5)
    try:
        agent = counter_agent(store)
        assert await run_increments([agent], "pool", 40) == []
        assert (await agent.aget_session_state("pool"))["count"] == 40
    finally:
        await store.aclose()


async def test_in_memory_sqlite_keeps_the_in_process_lock() -> None:
    """A private in-memory SqliteDb (one connection, one process) serializes in process."""
    store = SqliteDb(db_file=":memory:")
    try:
        agent = counter_agent(store)
        assert await run_increments([agent], "m", 30) == []
        assert (await agent.aget_session_state("m"))["count"] == 30
    finally:
        await store.aclose()
