"""PostgreSQL blackholed behind RedisDb: the run answers inside its deadline, truthfully.

The durable store sits behind the TCP fault proxy, which stops answering (packets
dropped, no error); Redis is a private server. In write-through mode a run's save
stands in Redis (the live state) and stays dirty for the snapshotter, so the run is
applied and says so; the durable write gives up at its own timeout inside the run's
deadline, not at a socket timeout long after it. A session that must be read back
from the silent store is refused after ``durable_timeout``, nothing written.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from structlog.testing import capture_logs

from core.agent import Agent
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.exceptions import StoreUnavailableError
from core.models.scripted import ScriptedModel, tool_call
from tests.db.crash.conftest import RedisServer
from tests.db.test_snapshot_batch_faults import PostgresProxy, proxy, through

__all__ = ["proxy"]  # the fixture, shared with the batch fault tests

#: the run's deadline; the hang detector allows three times as much
DEADLINE = 4.0
GAVE_UP = "durable write did not answer in time"


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "added"


@pytest.fixture
async def stores(
    own_redis: RedisServer, postgres_schema: tuple[str, str], proxy: PostgresProxy
) -> AsyncIterator[tuple[RedisDb, PostgresDb]]:
    """A write-through RedisDb whose durable store is reached through the proxy, and a
    direct connection to that database."""
    url, schema = postgres_schema
    durable = PostgresDb(db_url=through(url, proxy), schema=schema, connect_timeout=30)
    direct = PostgresDb(db_url=url, schema=schema)
    hot = RedisDb(
        db_url=own_redis.url, snapshot_to=durable, write_through=True, run_snapshotter=False
    )
    await durable.aping()  # connected and migrated before the blackhole
    try:
        yield hot, direct
    finally:
        proxy.die()
        await hot.aclose()
        await durable.aclose()
        await direct.aclose()


async def test_blackholed_durable_store_gives_an_applied_run_inside_the_deadline(
    stores: tuple[RedisDb, PostgresDb], proxy: PostgresProxy
) -> None:
    """PostgreSQL stops answering: the run returns its own reply (applied) once the durable
    write's timeout fires, not the run deadline nor a socket timeout; the change stands in
    Redis, dirty, and reaches PostgreSQL once it is back."""
    hot, direct = stores
    model = ScriptedModel([tool_call("add", item="bread"), "added bread"])
    model.extend([tool_call("add", item="milk"), "added milk"])
    agent = Agent(model, db=hot, tools=[add], run_timeout=DEADLINE, session_id="s")
    await agent.arun("add bread")  # the session is in Redis and in PostgreSQL
    proxy.blackholed = True
    with capture_logs() as logs:
        try:
            output = await asyncio.wait_for(agent.arun("add milk"), timeout=3 * DEADLINE)
        except TimeoutError:
            pytest.fail(f"the run hung past three times its {DEADLINE} s deadline")
    assert output.content == "added milk"
    assert output.session_state == {"items": ["bread", "milk"]}
    gave_up = [e for e in logs if e["event"] == GAVE_UP]
    assert gave_up and all(e["session_id"] == "s" for e in gave_up)
    record = await hot.aload("s")
    assert record is not None and record.state == {"items": ["bread", "milk"]}
    assert await hot.dirty.count() == 1  # the snapshotter carries it
    before = await direct.aload("s")
    assert before is not None and before.state == {"items": ["bread"]}
    proxy.die()  # the blackholed connections are gone; the database comes back
    await proxy.start()
    assert await hot.aflush() == 1
    copy = await direct.aload("s")
    assert copy is not None and copy.state == {"items": ["bread", "milk"]}
    assert copy.version == record.version


async def test_a_durable_store_that_refuses_still_undoes_and_says_nothing_was_written(
    stores: tuple[RedisDb, PostgresDb], proxy: PostgresProxy
) -> None:
    """PostgreSQL refusing connections (not silent) is known to have written nothing: the
    Redis save is undone and the run says its change was not applied."""
    hot, direct = stores
    model = ScriptedModel([tool_call("add", item="bread"), "added bread"])
    model.extend([tool_call("add", item="eggs"), "added eggs"])
    agent = Agent(model, db=hot, tools=[add], run_timeout=DEADLINE, session_id="r")
    await agent.arun("add bread")
    proxy.die()
    with pytest.raises(StoreUnavailableError, match="undone; nothing was written"):
        await asyncio.wait_for(agent.arun("add eggs"), timeout=3 * DEADLINE)
    record = await hot.aload("r")
    assert record is not None and record.state == {"items": ["bread"]}
    stored = await direct.aload("r")
    assert stored is not None and stored.state == {"items": ["bread"]}


async def test_a_session_not_in_redis_is_refused_when_the_durable_store_is_silent(
    stores: tuple[RedisDb, PostgresDb], proxy: PostgresProxy
) -> None:
    """A miss must be read back, and PostgreSQL does not answer: the run is refused after
    ``durable_timeout``, saying nothing was written, instead of waiting on the socket."""
    hot, direct = stores
    hot.durable_timeout = 1.0
    agent = Agent(
        ScriptedModel([tool_call("add", item="tea"), "added tea"]),
        db=hot,
        tools=[add],
        run_timeout=DEADLINE,
        session_id="new",
    )
    proxy.blackholed = True
    with pytest.raises(StoreUnavailableError, match="did not answer within 1 s") as caught:
        try:
            await asyncio.wait_for(agent.arun("add tea"), timeout=3 * DEADLINE)
        except TimeoutError:
            pytest.fail(f"the run hung past three times its {DEADLINE} s deadline")
    assert "nothing was written" in str(caught.value)
    proxy.die()
    await proxy.start()
    assert await direct.aload("new") is None
    assert await hot.dirty.count() == 0


async def test_a_session_to_check_after_a_redis_restart_is_refused_when_the_store_is_silent(
    stores: tuple[RedisDb, PostgresDb], proxy: PostgresProxy, own_redis: RedisServer
) -> None:
    """Redis restarted from its RDB must check the session against PostgreSQL, which does
    not answer: the run is refused after ``durable_timeout``, nothing written; once the
    database is back the next run goes on from the state kept."""
    hot, direct = stores
    hot.durable_timeout = 1.0
    model = ScriptedModel([tool_call("add", item="bread"), "added bread"])
    model.extend([tool_call("add", item="tea"), "added tea"] * 2)
    agent = Agent(model, db=hot, tools=[add], run_timeout=DEADLINE, session_id="old")
    await agent.arun("add bread")
    own_redis.save_rdb()
    own_redis.restart()  # the same data, another incarnation: checked before it serves
    proxy.blackholed = True
    with pytest.raises(StoreUnavailableError, match="did not answer within 1 s") as caught:
        try:
            await asyncio.wait_for(agent.arun("add tea"), timeout=3 * DEADLINE)
        except TimeoutError:
            pytest.fail(f"the run hung past three times its {DEADLINE} s deadline")
    assert "nothing was written" in str(caught.value)
    proxy.die()
    await proxy.start()
    output = await asyncio.wait_for(agent.arun("add tea"), timeout=3 * DEADLINE)
    assert output.session_state == {"items": ["bread", "tea"]}
    copy = await direct.aload("old")  # written through
    assert copy is not None and copy.state == {"items": ["bread", "tea"]}
