"""Budget usage counters on every backend: add, read, days apart, concurrent adds, keys."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis.asyncio as aioredis
import sqlalchemy as sa
from alembic import command

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis.store import RedisDb
from core.db.sql.migrate import _config, current_revision, head_revision
from core.db.sql.tables import TableNames
from core.db.sql.usage_tables import usage_table_name
from core.db.sqlite import SqliteDb
from core.exceptions import BudgetExceededError
from core.governance.budgets.model import Budget, Scope, Usage
from core.governance.budgets.redis_usage import EXPIRY, RedisUsageStore, usage_key
from core.governance.budgets.sql_usage import SqlUsageStore
from core.governance.budgets.store import MemoryUsageStore
from core.governance.budgets.stores import erase_usage, usage_store
from core.models.base import ModelResponse
from core.models.base import Usage as ModelUsage
from core.run.origin import CHANNEL_KEY
from core.testing import ScriptedModel
from tests.conftest import REDIS_URL
from tests.db.conftest import STORE_FACTORIES, Backend

SESSION = Scope("session", "slack:T1:C1:1700000000.000100")
USER = Scope("user", "slack:T1:U{weird}:ü")
CHANNEL = Scope("channel", "slack:T1:C1")
#: 2026-11-23 12:00 UTC, the injected clock of runs below
NOON = datetime(2026, 11, 23, 12, tzinfo=UTC).timestamp()
KINDS = {
    "memory": MemoryUsageStore,
    "sqlite": SqlUsageStore,
    "postgres": SqlUsageStore,
    "redis": RedisUsageStore,
}


@pytest.fixture
async def db(backend: Backend, request: pytest.FixtureRequest) -> AsyncIterator[BaseDb]:
    """A store of the parametrized backend, closed afterwards."""
    store = await backend.make(request)
    yield store
    await store.aclose()


async def test_each_backend_gets_its_own_kind_of_counters(
    db: BaseDb, request: pytest.FixtureRequest
) -> None:
    """SQL stores count in a table, RedisDb in Redis, InMemoryDb in memory; one per db."""
    backend_name = request.node.callspec.params["backend"]
    assert type(usage_store(db)) is KINDS[backend_name]
    assert usage_store(db) is usage_store(db)


async def test_adds_up_per_scope_and_keeps_days_apart(db: BaseDb) -> None:
    """Each scope's counters add up within a day; another day starts at zero."""
    store = usage_store(db)
    assert [u.tokens for u in await store.aread([SESSION, USER], "2026-11-23")] == [0, 0]
    await store.aadd([SESSION, USER], "2026-11-23", Usage(100, 2))
    await store.aadd([SESSION, CHANNEL], "2026-11-23", Usage(50, 1))
    await store.aadd([SESSION], "2026-11-24", Usage(7, 0))
    today = await store.aread([SESSION, USER, CHANNEL], "2026-11-23")
    assert [(u.tokens, u.tool_calls) for u in today] == [(150, 3), (100, 2), (50, 1)]
    tomorrow = await store.aread([SESSION, USER], "2026-11-24")
    assert [(u.tokens, u.tool_calls) for u in tomorrow] == [(7, 0), (0, 0)]


async def test_concurrent_adds_all_count(db: BaseDb) -> None:
    """Runs recording at the same time lose no increment (atomic upsert / HINCRBY)."""
    store = usage_store(db)
    await asyncio.gather(
        *(store.aadd([SESSION, USER], "2026-11-23", Usage(3, 1)) for _ in range(20))
    )
    used = await store.aread([SESSION, USER], "2026-11-23")
    assert [(u.tokens, u.tool_calls) for u in used] == [(60, 20), (60, 20)]


async def test_two_store_objects_share_the_counters(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    """Two stores over one database (two processes) see each other's counts; two
    InMemoryDb objects are two separate memories, like their sessions."""
    first, second = await backend.make(request), await backend.make(request)
    try:
        await usage_store(first).aadd([CHANNEL], "2026-11-23", Usage(10, 1))
        await usage_store(second).aadd([CHANNEL], "2026-11-23", Usage(5, 0))
        [seen] = await usage_store(first).aread([CHANNEL], "2026-11-23")
        shared = backend is not STORE_FACTORIES["memory"]
        assert (seen.tokens, seen.tool_calls) == ((15, 1) if shared else (10, 1))
    finally:
        await first.aclose()
        await second.aclose()


async def test_in_memory_counters_keep_two_days() -> None:
    """The in-memory store drops days older than yesterday, so it stays bounded."""
    store = usage_store(InMemoryDb())
    for day in ("2026-11-21", "2026-11-22", "2026-11-23"):
        await store.aadd([SESSION], day, Usage(1, 0))
    assert [u.tokens for u in await store.aread([SESSION], "2026-11-21")] == [0]
    assert [u.tokens for u in await store.aread([SESSION], "2026-11-22")] == [1]


async def test_redis_keys_are_prefixed_tagged_and_expire(redis_url: str, key_prefix: str) -> None:
    """Redis: one hash per scope and day under the store's prefix, the scope's hash in
    the hash tag, expiring after two days; one pipelined round trip records a run."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    client = aioredis.Redis.from_url(REDIS_URL)
    try:
        await usage_store(db).aadd([SESSION, USER, CHANNEL], "2026-11-23", Usage(9, 2))
        key = usage_key(key_prefix, USER, "2026-11-23")
        assert key.startswith(f"{key_prefix}{{u") and key.endswith("}:usage:2026-11-23")
        assert len(key) - len(key_prefix) < 70  # fixed size whatever the id
        assert await client.hgetall(key) == {b"tokens": b"9", b"tool_calls": b"2"}
        assert 0 < await client.ttl(key) <= EXPIRY
        keys = [k async for k in client.scan_iter(match=f"{key_prefix}*:usage:*")]
        assert len(keys) == 3
        assert usage_key(key_prefix, Scope("user", "a"), "d") != usage_key(
            key_prefix, Scope("channel", "a"), "d"
        )
    finally:
        await client.aclose()
        await db.aclose()


async def test_migration_0008_upgrades_an_existing_database(tmp_path: Path) -> None:
    """A database at 0007 with a session in it gets the usage table on next open and
    keeps its session; counting then works."""
    path = tmp_path / "old.db"
    names = TableNames.for_session_table(None)
    db = SqliteDb(db_file=path)
    agent = Agent(db=db, tools=[_add], budget=Budget())
    await agent.arun_tool("_add", {"item": "milk"}, session_id="s")
    with db._writer.begin() as conn:
        config = _config()
        config.attributes["connection"] = conn
        config.attributes["table_names"] = names
        command.downgrade(config, "0007")
        assert usage_table_name(names) not in sa.inspect(conn).get_table_names()
    await db.aclose()

    reopened = SqliteDb(db_file=path)
    try:
        reopened_agent = Agent(db=reopened, tools=[_add], budget=Budget(clock=lambda: NOON))
        await reopened_agent.arun_tool("_add", {"item": "tea"}, session_id="s")
        assert await reopened_agent.aget_session_state("s") == {"items": ["milk", "tea"]}
        with reopened.connection() as conn:
            assert current_revision(conn, names) == head_revision()
            assert usage_table_name(names) in sa.inspect(conn).get_table_names()
        [used] = await usage_store(reopened).aread([Scope("session", "s")], "2026-11-23")
        assert used.tool_calls == 1
    finally:
        await reopened.aclose()


def _add(item: str, session_state: dict[str, list[str]]) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "ok"


async def test_erasure_removes_a_users_and_sessions_counters(db: BaseDb) -> None:
    """erase_usage deletes every day's counters of the user and the sessions, and only those."""
    today = datetime.now(UTC).date().isoformat()
    store = usage_store(db)
    await store.aadd([SESSION, USER, CHANNEL], today, Usage(5, 1))
    other = Scope("user", "someone else")
    await store.aadd([other], today, Usage(1, 0))
    assert await erase_usage(db, user_id=USER.id, session_ids=[SESSION.id]) == 2
    used = await store.aread([SESSION, USER, CHANNEL, other], today)
    assert [u.tokens for u in used] == [0, 0, 5, 1]


async def test_a_budgeted_turn_on_redis_adds_one_round_trip_each_to_check_and_record(
    redis_url: str, key_prefix: str
) -> None:
    """RedisDb: the check is one pipelined read and the recording of all scopes one
    pipelined write (2 + 2 round trips for a turn); a refused run leaves its lease free."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    answer = ModelResponse(content="ok", usage=ModelUsage(60, 0))
    model = ScriptedModel([answer, answer, answer])
    agent = Agent(model=model, db=db, budget=Budget(tokens_per_user=100, clock=lambda: NOON))
    where = {CHANNEL_KEY: "slack:T1:C1"}
    try:
        await agent.arun("warm", session_id="s", user_id="u", metadata=where)
        db.round_trips.reset()
        await agent.arun("again", session_id="s", user_id="u", metadata=where)
        assert db.round_trips.reset() == 4
        with pytest.raises(BudgetExceededError):
            await agent.arun("over", session_id="s", user_id="u", metadata=where)
        assert len(model.requests) == 2
        [used] = await usage_store(db).aread([Scope("user", "u")], "2026-11-23")
        assert used.tokens == 120
        agent.budget = None  # the lease went back: the session runs at once
        assert (await agent.arun("free", session_id="s", user_id="u")).content == "ok"
    finally:
        await db.aclose()
