"""erase_user while the user's runs are in flight or queued on a session's lease.

Runs go through the real run path (``Agent.arun``: lease, load, tools, save) on every
store; the stores are then scanned whole (every Redis key under the prefix, every SQL
row) for the user's id.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.exceptions import ErasureInProgressError
from core.governance.erasure import erase_user
from core.testing import ScriptedModel, tool_call
from tests.db.erasure_fixtures import ANA, BOB, OWN, SHARED, fill, traces

STORES = ["redis+postgres", "sqlite", "postgres", "redis", "memory"]
NEW_DM = "slack:T1:DANA2"  # a DM Ana's run in flight creates: no store names it yet


@pytest.fixture(params=STORES)
def kind(request: pytest.FixtureRequest) -> str:
    """Which store; its services' fixtures set up first (they are async)."""
    if "redis" in request.param:
        request.getfixturevalue("redis_url")
    if "postgres" in request.param:
        request.getfixturevalue("postgres_schema")
    return str(request.param)


@pytest.fixture
async def db(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[BaseDb]:
    """The store of ``kind``, under this test's own prefix or schema."""
    durable: BaseDb | None = None
    if "postgres" in kind:
        url, schema = request.getfixturevalue("postgres_schema")
        durable = PostgresDb(db_url=url, schema=schema)
    store: BaseDb
    if "redis" in kind:
        store = RedisDb(
            db_url=request.getfixturevalue("redis_url"),
            key_prefix=request.getfixturevalue("key_prefix"),
            snapshot_to=durable,
            run_snapshotter=False,
        )
    elif kind == "sqlite":
        store = SqliteDb(db_file=tmp_path / "state.db")
    elif kind == "memory":
        store = InMemoryDb()
    else:
        assert durable is not None
        store, durable = durable, None
    try:
        yield store
    finally:
        await store.aclose()
        if durable is not None:
            await durable.aclose()


async def everything_naming(db: BaseDb, needle: str) -> list[str]:
    """Every key, value or row the store holds that contains ``needle``."""
    if isinstance(db, InMemoryDb):  # a process's dicts: every stored record, as text
        held = (db._sessions, db._history, db._memories)
        return [text for text in map(repr, held) if needle in text]
    return await traces(db, needle)


def note(session_state: dict[str, Any], text: str, who: str) -> str:
    """Add a note naming its author."""
    session_state.setdefault("notes", []).append({"text": text, "by": who})
    return "noted"


def ana_agent(db: BaseDb, release: asyncio.Event | None = None) -> Agent:
    """An agent whose one tool writes Ana's id into the state; with ``release``, the
    tool waits for it (a run in flight)."""

    async def slow_note(session_state: dict[str, Any], text: str) -> str:
        """Add a note, slowly."""
        assert release is not None
        await release.wait()
        return note(session_state, text, ANA)

    tools = [slow_note] if release is not None else [note]
    name = "slow_note" if release is not None else "note"
    args = {"text": "mine"} if release is not None else {"text": "mine", "who": ANA}
    model = ScriptedModel([tool_call(name, **args), "done"])
    return Agent(model=model, db=db, tools=tools, session_state={"notes": []})


async def until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait for ``check()``; fail with ``what`` after 30 s (never a timing assertion)."""
    for _ in range(3000):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"gave up waiting: {what}")


def queued(db: BaseDb, session_id: str) -> Callable[[], Awaitable[int]]:
    """How many runs wait for the session's lease, in this store's own lease table."""

    async def count() -> int:
        if isinstance(db, RedisDb | PostgresDb | SqliteDb):
            return await db.leases.waiting(session_id)
        table = db._locks._by_loop.get(asyncio.get_running_loop(), {})
        _, users = table.get(session_id, (None, 0))
        return max(0, users - 1)

    return count


async def test_runs_queued_or_in_flight_when_an_erasure_starts_leave_no_trace(
    db: BaseDb,
) -> None:
    """Ana's runs queued on a lease are refused, her run in flight is waited for, and
    erasure reports complete only with nothing of her left in any key or row."""
    await fill(db)
    release_in_flight = asyncio.Event()
    in_flight = asyncio.create_task(
        ana_agent(db, release_in_flight).arun("note", session_id=NEW_DM, user_id=ANA)
    )
    await until(lambda: db.lease_view.held(NEW_DM), "Ana's run holds its new DM")

    bob_holds, bob_done = asyncio.Event(), asyncio.Event()

    async def bob_run() -> None:  # Bob's run holds the shared thread while Ana's queue
        async with db.session_lock(SHARED):
            bob_holds.set()
            await bob_done.wait()

    bob = asyncio.create_task(bob_run())
    await bob_holds.wait()
    waiting = [
        asyncio.create_task(ana_agent(db).arun(f"n{i}", session_id=sid, user_id=ANA))
        for i, sid in enumerate([SHARED, SHARED, SHARED])
    ]
    await until(lambda: _at_least(queued(db, SHARED), 3), "Ana's runs queue on the thread")

    erasure = asyncio.create_task(erase_user(db, ANA, pseudonym="erased-user-x"))
    await until(lambda: db.auser_blocked(ANA), "the erasure blocks Ana's runs")
    bob_done.set()  # Ana's queued runs get the lease one by one, after the block
    release_in_flight.set()  # her run in flight saves its DM: the erasure waited for it
    report = await erasure
    await bob
    outcomes = await asyncio.gather(*waiting, return_exceptions=True)
    assert (await in_flight).content == "done"

    assert report.complete, report.errors
    assert {OWN, NEW_DM} <= set(report.sessions_deleted) and SHARED in report.sessions_scrubbed
    assert all(isinstance(o, ErasureInProgressError) for o in outcomes), outcomes
    assert "is being erased" in str(outcomes[0]) and "Nothing was run" in str(outcomes[0])
    assert await everything_naming(db, ANA) == []
    record = await db.aload(SHARED)
    assert record is not None and record.state["votes"] == {"erased-user-x": 1, BOB: 3}

    assert not await db.auser_blocked(ANA)  # the block ends with the erasure
    after = await ana_agent(db).arun("again", session_id=SHARED, user_id=ANA)
    assert after.content == "done"


async def _at_least(count: Callable[[], Awaitable[int]], n: int) -> bool:
    return await count() >= n


async def test_a_run_during_an_erasure_is_refused_before_anything_runs(db: BaseDb) -> None:
    """While the marker is held, Ana's run is refused without calling the model; Bob's runs."""
    model = ScriptedModel([tool_call("note", text="x", who=ANA), "done"])
    agent = Agent(model=model, db=db, tools=[note], session_state={"notes": []})
    async with db.user_block(ANA):
        with pytest.raises(ErasureInProgressError, match="Nothing was run and nothing was saved"):
            await agent.arun("hi", session_id=SHARED, user_id=ANA)
        assert model.requests == [] and await db.aload(SHARED) is None
        assert (await agent.arun("hi", session_id=SHARED, user_id=BOB)).content == "done"


HOLD_MARKER = """
import asyncio, sys
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb

async def main(kind, where, extra):
    if kind == "sqlite":
        db = SqliteDb(db_file=where, lock_ttl=1.0)
    elif kind == "postgres":
        db = PostgresDb(db_url=where, schema=extra, lock_ttl=1.0)
    else:
        db = RedisDb(db_url=where, key_prefix=extra, lock_ttl=1.0)
    async with db.user_block(sys.argv[4]):
        print("held", flush=True)
        await asyncio.sleep(3600)

asyncio.run(main(*sys.argv[1:4]))
"""


@pytest.mark.parametrize("kind", ["sqlite", "postgres", "redis"], indirect=True)
async def test_the_block_ends_when_the_erasing_process_dies(
    db: BaseDb, kind: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """An erasing process killed with SIGKILL blocks the user's runs no longer than the
    marker's lease time; then they run again."""
    if kind == "sqlite":
        where, extra = str(tmp_path / "state.db"), ""
    elif kind == "postgres":
        where, extra = request.getfixturevalue("postgres_schema")
    else:
        where, extra = request.getfixturevalue("redis_url"), request.getfixturevalue("key_prefix")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLD_MARKER, kind, where, extra, ANA,
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert await asyncio.wait_for(proc.stdout.readline(), 60) == b"held\n"
        assert await db.auser_blocked(ANA)
        with pytest.raises(ErasureInProgressError):
            await ana_agent(db).arun("hi", session_id=OWN, user_id=ANA)
    finally:
        proc.kill()
        await proc.wait()
    await until(lambda: _unblocked(db), "the dead process's marker expires")
    assert (await ana_agent(db).arun("hi", session_id=OWN, user_id=ANA)).content == "done"


async def _unblocked(db: BaseDb) -> bool:
    return not await db.auser_blocked(ANA)
