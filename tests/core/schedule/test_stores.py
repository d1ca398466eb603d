"""One contract for every schedule store: add, read, list, compare-and-set, poll, erase."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from core.db.records import Lease
from core.exceptions import LeaseLostError
from core.schedule import ScheduleLimitError, schedule_store
from core.schedule.model import Schedule, Status
from tests.core.schedule.conftest import World


def make(session_id: str = "slack:T1:C1:1.0", due: float = 100.0, **extra: object) -> Schedule:
    schedule = Schedule(
        uuid.uuid4().hex,
        session_id,
        "remind me",
        nominal_at=due,
        due_at=due,
        owner_id="taskboard",
        user_id="slack:T1:U1",
        tz="Europe/Madrid",
        target_text='{"channel":"C1","thread":"1.0"}',
        created_at=1.0,
    )
    return dataclasses.replace(schedule, **extra)


async def test_add_read_list_and_round_trip_every_field(world: World) -> None:
    """What is added comes back field for field, listed soonest first."""
    store = schedule_store(world.open())
    later, sooner = make(due=200.0, cron="0 9 * * *"), make(due=100.0)
    await store.aadd(later, max_per_session=10)
    await store.aadd(sooner, max_per_session=10)
    assert await store.aget(later.session_id, later.schedule_id) == later
    assert await store.alist(later.session_id) == [sooner, later]
    assert await store.alist("another session") == []
    assert later.target == {"channel": "C1", "thread": "1.0"}


async def test_due_polls_only_what_is_due_earliest_first(world: World) -> None:
    """adue returns schedules whose due_at passed, across sessions, in due order."""
    store = schedule_store(world.open())
    first, second, future = make("a", due=50.0), make("b", due=60.0), make("c", due=500.0)
    for s in (second, future, first):
        await store.aadd(s, max_per_session=10)
    assert [s.schedule_id for s in await store.adue(100.0, 10)] == [
        first.schedule_id,
        second.schedule_id,
    ]
    assert len(await store.adue(100.0, 1)) == 1


async def test_compare_and_set_writes_only_from_the_stored_revision(world: World) -> None:
    """A change computed from an old revision is refused; None deletes."""
    store = schedule_store(world.open())
    original = make()
    await store.aadd(original, max_per_session=10)
    claimed = original.evolve(status=Status.CLAIMED, claim_token="t", due_at=700.0)
    assert await store.acas(original, claimed)
    assert not await store.acas(original, original.evolve(due_at=1.0))  # stale revision
    assert await store.aget(original.session_id, original.schedule_id) == claimed
    assert [s.schedule_id for s in await store.adue(650.0, 10)] == []  # the claim moved it
    assert await store.acas(claimed, None)
    assert await store.aget(original.session_id, original.schedule_id) is None
    assert not await store.acas(claimed, None)


async def test_a_session_holds_a_bounded_number_of_schedules(world: World) -> None:
    """Past max_per_session, adding fails clearly and stores nothing."""
    store = schedule_store(world.open())
    for _ in range(2):
        await store.aadd(make(), max_per_session=2)
    with pytest.raises(ScheduleLimitError, match="already has 2 schedules"):
        await store.aadd(make(), max_per_session=2)
    assert len(await store.alist(make().session_id)) == 2


async def test_erasing_a_session_erases_only_its_schedules(world: World) -> None:
    """adelete_for_session leaves other sessions' schedules alone."""
    store = schedule_store(world.open())
    mine, theirs = make("mine"), make("theirs")
    for s in (mine, make("mine"), theirs):
        await store.aadd(s, max_per_session=10)
    assert await store.adelete_for_session("mine") == 2
    assert await store.alist("mine") == []
    assert [s.schedule_id for s in await store.adue(1000.0, 10)] == [theirs.schedule_id]


async def test_a_change_under_a_lost_lease_is_refused(shared_world: World) -> None:
    """Fencing: a lease token that is not the session's live holder writes nothing."""
    db = shared_world.open()
    store = schedule_store(db)
    original = make()
    await store.aadd(original, max_per_session=10)
    with pytest.raises(LeaseLostError):
        await store.acas(
            original, original.evolve(due_at=5.0), lease=Lease(original.session_id, "x")
        )
    async with db.session_lock(original.session_id) as lease:
        assert await store.acas(original, original.evolve(due_at=5.0), lease=lease)


async def test_schedules_persist_across_store_objects(shared_world: World) -> None:
    """A new store object (another process, or a restart) sees what the first stored."""
    first = schedule_store(shared_world.open())
    schedule = make()
    await first.aadd(schedule, max_per_session=10)
    second = schedule_store(shared_world.open())
    assert second is not first
    assert await second.aget(schedule.session_id, schedule.schedule_id) == schedule
    assert [s.schedule_id for s in await second.adue(1000.0, 10)] == [schedule.schedule_id]
