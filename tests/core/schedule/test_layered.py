"""Redis in front of the durable table: Redis may lose everything, no run is lost."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.schedule import Scheduler, Schedules, ScheduleSettings, schedule_store, transitions
from core.schedule.layered import LayeredScheduleStore
from tests.core.schedule.conftest import FakeClock
from tests.core.schedule.helpers import AgentFirer
from tests.db.crash.conftest import RedisServer

SESSION = "discord:G1:C1:T1"


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A throwaway redis-server this test may restart (empty) at will."""
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
async def opened(tmp_path: Path, private_redis: RedisServer) -> AsyncIterator[list[RedisDb]]:
    made: list[RedisDb] = []
    yield made
    for db in made:
        await db.aclose()
        assert db.snapshot_to is not None
        await db.snapshot_to.aclose()


def layered(tmp_path: Path, server: RedisServer, opened: list[RedisDb]) -> RedisDb:
    db = RedisDb(
        db_url=server.url,
        snapshot_to=SqliteDb(db_file=tmp_path / "durable.db"),
        run_snapshotter=False,
    )
    opened.append(db)
    return db


@pytest.mark.slow
async def test_a_redis_restart_that_lost_everything_loses_no_schedule(
    tmp_path: Path, private_redis: RedisServer, opened: list[RedisDb]
) -> None:
    """Scheduled, Redis restarted empty, new processes: the run fires from the durable row."""
    clock = FakeClock()
    db = layered(tmp_path, private_redis, opened)
    book = Schedules(schedule_store(db), session_id=SESSION, owner_id="reminders", clock=clock)
    item = await book.aadd(in_=120, input="after the restart")
    others = [
        await Schedules(schedule_store(db), session_id=f"discord:G2:C{n}:T1", clock=clock).aadd(
            in_=60, input="another session"
        )
        for n in range(5)
    ]
    private_redis.restart()  # kill -9, back without data
    clock.advance(120)
    fresh = layered(tmp_path, private_redis, opened)
    fire = AgentFirer(fresh)
    assert await Scheduler(fresh, fire, clock=clock).run_once() == 6
    fired = {f.schedule.schedule_id for f in fire.firings}
    assert fired == {item.schedule_id, *(s.schedule_id for s in others)}
    record = await fresh.aload(SESSION)
    assert record is not None and record.state["fired"] == ["after the restart"]


async def test_a_lost_index_write_is_repaired_by_the_periodic_resync(
    tmp_path: Path, private_redis: RedisServer, opened: list[RedisDb]
) -> None:
    """A schedule the Redis index never got still fires, at the next resync."""
    clock = FakeClock()
    ticks = FakeClock(0.0)
    db = layered(tmp_path, private_redis, opened)
    store = schedule_store(db)
    assert isinstance(store, LayeredScheduleStore)
    store.clock = ticks
    fire = AgentFirer(db)
    loop = Scheduler(db, fire, clock=clock, settings=ScheduleSettings())
    assert await loop.run_once() == 0  # builds the (empty) index
    book = Schedules(store, session_id=SESSION, owner_id="reminders", clock=clock)
    item = await book.aadd(in_=5, input="indexed late")
    await store.hot.amirror(item.schedule_id, SESSION, None)  # the index write "failed"
    clock.advance(5)
    assert await loop.run_once() == 0  # Redis does not know it yet
    ticks.advance(store.resync_every)
    assert await loop.run_once() == 1
    assert [f.schedule.input for f in fire.firings] == ["indexed late"]


async def test_redis_and_durable_disagreeing_never_fires_twice(
    tmp_path: Path, private_redis: RedisServer, opened: list[RedisDb]
) -> None:
    """A cancel that reached only the durable row (Redis missed it) still wins."""
    clock = FakeClock()
    db = layered(tmp_path, private_redis, opened)
    store = schedule_store(db)
    assert isinstance(store, LayeredScheduleStore)
    book = Schedules(store, session_id=SESSION, owner_id="reminders", clock=clock)
    item = await book.aadd(in_=5, input="cancelled in the durable store only")
    assert await store.durable.acas(item, None)
    clock.advance(5)
    fire = AgentFirer(db)
    assert await Scheduler(db, fire, clock=clock).run_once() == 0
    assert fire.firings == []
    assert await store.hot.aget(SESSION, item.schedule_id) is None  # repaired from durable


async def test_a_resync_never_undoes_a_claim_on_its_way_to_the_durable_store(
    tmp_path: Path, private_redis: RedisServer, opened: list[RedisDb]
) -> None:
    """Redis ahead of the durable row (a claim in flight) is left alone by a resync."""
    clock = FakeClock()
    ticks = FakeClock(0.0)
    db = layered(tmp_path, private_redis, opened)
    store = schedule_store(db)
    assert isinstance(store, LayeredScheduleStore)
    store.clock = ticks
    item = await Schedules(store, session_id=SESSION, clock=clock).aadd(in_=5, input="x")
    claimed = transitions.claim(item, now=clock.now + 5, token="t", claim_ttl=600)
    assert claimed is not None
    assert await store.hot.acas(item, claimed)  # step one of the claim: Redis
    ticks.advance(store.resync_every)
    await store.adue(clock.now + 5, 10)  # another process's resync runs now
    assert await store.hot.aget(SESSION, item.schedule_id) == claimed
    assert await store.durable.acas(item, claimed)  # step two: the durable row
    started = transitions.start(claimed, token="t")
    assert started is not None and await store.acas(claimed, started)


async def test_a_claim_that_died_between_redis_and_the_durable_store_is_undone(
    tmp_path: Path, private_redis: RedisServer, opened: list[RedisDb]
) -> None:
    """Redis ahead of the durable row for good (its scheduler died): the run still fires."""
    clock = FakeClock()
    db = layered(tmp_path, private_redis, opened)
    store = schedule_store(db)
    assert isinstance(store, LayeredScheduleStore)
    item = await Schedules(store, session_id=SESSION, clock=clock).aadd(in_=5, input="x")
    claimed = transitions.claim(item, now=clock.now + 5, token="dead", claim_ttl=60)
    assert claimed is not None and await store.hot.acas(item, claimed)  # then the crash
    clock.advance(5 + 60)  # the dead claim expired
    fire = AgentFirer(db)
    loop = Scheduler(db, fire, clock=clock)
    assert await loop.run_once() == 0  # the durable row refuses; Redis is set back
    assert await loop.run_once() == 1
    assert [f.schedule.schedule_id for f in fire.firings] == [item.schedule_id]
