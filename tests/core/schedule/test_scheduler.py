"""The firing loop: once, under the session's lease, with retries, late runs and cancels.

The clock is injected (``FakeClock``); the tests call ``Scheduler.run_once`` and never
wait for time to pass.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from structlog.testing import capture_logs

from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.exceptions import StoreUnavailableError
from core.run.context import RunContext
from core.schedule import (
    TARGET_KEY,
    USER_TZ_KEY,
    CancelOutcome,
    Firing,
    MemoryScheduleStore,
    Schedule,
    Scheduler,
    Schedules,
    ScheduleSettings,
    erase_session_schedules,
    schedule_store,
    schedules,
)
from tests.core.schedule.conftest import FakeClock, World
from tests.core.schedule.helpers import AgentFirer

SESSION = "slack:T1:C1:1700000000.000100"
USER = "slack:T1:U1"
SETTINGS = ScheduleSettings(max_attempts=3, backoff_base=30, backoff_cap=600, max_late=3600)


def book(db: BaseDb, clock: FakeClock, **kwargs: Any) -> Schedules:
    """The session's schedules, as a tool of the reminder agent would get them."""
    return Schedules(
        schedule_store(db),
        session_id=SESSION,
        owner_id="reminders",
        user_id=USER,
        settings=SETTINGS,
        clock=clock,
        **kwargs,
    )


def scheduler(db: BaseDb, fire: Any, clock: FakeClock, **kwargs: Any) -> Scheduler:
    return Scheduler(db, fire, settings=SETTINGS, clock=clock, **kwargs)


async def fired_texts(db: BaseDb) -> list[str]:
    record = await db.aload(SESSION)
    return [] if record is None else list(record.state.get("fired", []))


async def test_a_due_schedule_runs_the_agent_on_its_session(world: World, clock: FakeClock) -> None:
    """The run goes through the agent, on the session, as the scheduling user."""
    db = world.open()
    target = {"channel": "C1", "thread": "1700000000.000100"}
    item = await book(db, clock, target=target).aadd(in_=600, input="water the plants")
    fire = AgentFirer(db)
    loop = scheduler(db, fire, clock)
    assert await loop.run_once() == 0  # not due yet
    clock.advance(600)
    assert await loop.run_once() == 1
    assert await fired_texts(db) == ["water the plants"]
    [firing] = fire.firings
    assert firing.schedule.schedule_id == item.schedule_id
    assert firing.schedule.target == target and firing.late_by is None
    record = await db.aload(SESSION)
    assert record is not None and record.user_id == USER and record.owner_id == "reminders"
    assert await schedule_store(db).alist(SESSION) == []  # a one-off run is done
    assert await loop.run_once() == 0


async def test_three_schedulers_fire_each_schedule_once(
    shared_world: World, clock: FakeClock
) -> None:
    """Three schedulers on separate store objects poll at once: every run fires once."""
    first = shared_world.open()
    for n in range(8):
        await book(first, clock).aadd(in_=60, input=f"reminder {n}")
    clock.advance(60)
    dbs = [shared_world.open() for _ in range(3)]
    fires = [AgentFirer(db) for db in dbs]
    loops = [scheduler(db, fire, clock) for db, fire in zip(dbs, fires, strict=True)]
    counts = await asyncio.gather(*(loop.run_once() for loop in loops))
    counts += await asyncio.gather(*(loop.run_once() for loop in loops))
    assert sum(counts) == 8
    fired = [f.schedule.input for fire in fires for f in fire.firings]
    assert sorted(fired) == sorted(f"reminder {n}" for n in range(8))
    assert sorted(await fired_texts(first)) == sorted(fired)


async def test_a_schedule_survives_a_restart_between_scheduling_and_firing(
    shared_world: World, clock: FakeClock
) -> None:
    """Scheduled through one set of store objects, fired by a fresh set after a restart."""
    before = shared_world.open()
    await book(before, clock).aadd(in_=3600, input="standup")
    await before.aclose()
    clock.advance(3600)
    after = shared_world.open()
    assert await scheduler(after, AgentFirer(after), clock).run_once() == 1
    assert await fired_texts(after) == ["standup"]


async def test_cancel_before_the_run_starts_wins(world: World, clock: FakeClock) -> None:
    """A cancel landing between claim and start means the run never happens."""
    db = world.open()
    schedules_ = book(db, clock)
    item = await schedules_.aadd(in_=10, input="never")
    outcomes: list[CancelOutcome] = []

    async def cancel_now(claimed: Schedule) -> None:
        outcomes.append(await schedules_.acancel(claimed.schedule_id))

    fire = AgentFirer(db)
    clock.advance(10)
    assert await scheduler(db, fire, clock, after_claim=cancel_now).run_once() == 0
    assert outcomes == [CancelOutcome.CANCELLED] and fire.firings == []
    assert await schedules_.aget(item.schedule_id) is None
    assert await fired_texts(db) == []


async def test_cancel_by_a_run_holding_the_lease_is_seen_by_the_claim(
    shared_world: World, clock: FakeClock
) -> None:
    """A run of the session that cancels the schedule blocks the claim until it is done."""
    db = shared_world.open()
    item = await book(db, clock).aadd(in_=10, input="never")
    clock.advance(10)
    fire = AgentFirer(db)
    other = shared_world.open()
    store = schedule_store(other)
    polled = asyncio.Event()
    poll = store.adue

    async def watched_poll(now: float, limit: int) -> list[Schedule]:
        found = await poll(now, limit)
        polled.set()
        return found

    store.adue = watched_poll  # type: ignore[method-assign]
    async with db.session_lock(SESSION):
        polling = asyncio.create_task(scheduler(other, fire, clock).run_once())
        await polled.wait()  # the scheduler saw the schedule due; its claim needs the lease
        assert await book(db, clock).acancel(item.schedule_id) == CancelOutcome.CANCELLED
    assert await polling == 0 and fire.firings == []


async def test_cancel_while_firing_lets_the_run_finish_and_stops_the_repeats(
    world: World, clock: FakeClock
) -> None:
    """Cancelling a running cron schedule is reported truthfully and ends it after."""
    db = world.open()
    schedules_ = book(db, clock)
    item = await schedules_.aadd(cron="*/5 * * * *", input="tick")
    outcomes: list[CancelOutcome] = []

    async def fire(firing: Firing) -> None:
        outcomes.append(await schedules_.acancel(item.schedule_id))

    clock.advance(600)
    assert await scheduler(db, fire, clock).run_once() == 1
    assert outcomes == [CancelOutcome.ALREADY_FIRING]
    assert await schedules_.alist() == []
    assert await schedules_.acancel(item.schedule_id) == CancelOutcome.NOT_FOUND


async def test_failures_back_off_then_the_run_is_dropped_with_an_error(
    world: World, clock: FakeClock
) -> None:
    """Retries after 30 s and 60 s; the third failure drops the run and logs an error."""
    db = world.open()
    schedules_ = book(db, clock)
    item = await schedules_.aadd(in_=1, input="flaky")
    calls: list[int] = []

    async def fire(firing: Firing) -> None:
        calls.append(firing.attempt)
        raise RuntimeError("platform down")

    loop = scheduler(db, fire, clock)
    clock.advance(1)
    with capture_logs() as logs:
        assert await loop.run_once() == 1
        retry = await schedules_.aget(item.schedule_id)
        assert retry is not None and retry.due_at == clock.now + 30
        assert retry.last_error == "RuntimeError: platform down"
        clock.advance(29)
        assert await loop.run_once() == 0  # not yet
        clock.advance(1)
        assert await loop.run_once() == 1
        clock.advance(60)
        assert await loop.run_once() == 1
    assert calls == [1, 2, 3]
    assert await schedules_.aget(item.schedule_id) is None
    dropped = [e for e in logs if e["log_level"] == "error"]
    assert len(dropped) == 1 and dropped[0]["schedule_id"] == item.schedule_id
    assert dropped[0]["attempts"] == 3 and "platform down" in dropped[0]["error"]


async def test_a_missed_run_fires_late_with_a_note_or_is_skipped(
    world: World, clock: FakeClock
) -> None:
    """Within max_late the run fires, told how late; beyond it, it is skipped and logged."""
    db = world.open()
    schedules_ = book(db, clock)
    late = await schedules_.aadd(in_=60, input="late but fine")
    stale = await schedules_.aadd(in_=30, input="too old")
    clock.advance(60 + 1800)  # every process was down for half an hour
    fire = AgentFirer(db)
    loop = scheduler(db, fire, clock)
    with capture_logs() as logs:
        clock.advance(1800)  # 'too old' is now 3630 s late, 'late' 3600 s
        assert await loop.run_once() == 1
    [firing] = fire.firings
    assert firing.schedule.schedule_id == late.schedule_id
    assert firing.late_by == timedelta(seconds=3600)
    assert firing.note == "(This scheduled run starts 1 hour late.)"
    assert await fired_texts(db) == ["late but fine (This scheduled run starts 1 hour late.)"]
    skipped = [e for e in logs if e.get("schedule_id") == stale.schedule_id]
    assert skipped and "skipped" in skipped[0]["event"]
    assert await schedules_.alist() == []


async def test_a_madrid_cron_keeps_local_time_across_the_dst_change(
    world: World, clock: FakeClock
) -> None:
    """'0 9 * * *' in Europe/Madrid fires at 08:00 UTC, then 07:00 UTC after 29 March."""
    db = world.open()
    clock.now = datetime(2026, 3, 27, 12, 0, tzinfo=UTC).timestamp()
    schedules_ = book(db, clock, user_tz="Europe/Madrid")
    item = await schedules_.aadd(cron="0 9 * * *", input="daily plan")
    assert item.tz == "Europe/Madrid"
    fire = AgentFirer(db)
    loop = scheduler(db, fire, clock)
    fired_at: list[str] = []
    for _ in range(3):
        current = await schedules_.aget(item.schedule_id)
        assert current is not None
        clock.now = current.nominal_at
        assert await loop.run_once() == 1
        fired_at.append(datetime.fromtimestamp(clock.now, UTC).strftime("%d %H:%M"))
    assert fired_at == ["28 08:00", "29 07:00", "30 07:00"]
    assert len(await fired_texts(db)) == 3


async def test_schedules_are_erased_with_the_session(world: World, clock: FakeClock) -> None:
    """Erasing a session's schedules leaves nothing to fire."""
    db = world.open()
    await book(db, clock).aadd(in_=5, input="gone")
    await book(db, clock).aadd(cron="* * * * *", input="gone too")
    assert await erase_session_schedules(db, SESSION) == 2
    clock.advance(3600)
    fire = AgentFirer(db)
    assert await scheduler(db, fire, clock).run_once() == 0 and fire.firings == []


async def test_a_tool_schedules_through_its_run_context(world: World, clock: FakeClock) -> None:
    """schedules(run_context, agent) takes the session, owner, user, target and tz."""
    db = world.open()
    agent = AgentFirer(db).agent
    context = RunContext(
        run_id="r1",
        session_id=SESSION,
        user_id=USER,
        metadata={TARGET_KEY: {"channel": "C9"}, USER_TZ_KEY: "America/New_York"},
    )
    made = await schedules(context, agent).aadd(in_=60, input="ping")
    assert (made.session_id, made.owner_id, made.user_id) == (SESSION, "reminders", USER)
    assert made.target == {"channel": "C9"} and made.tz == "America/New_York"
    listed = await schedules(context, agent).alist()
    assert [s.schedule_id for s in listed] == [made.schedule_id]
    assert await schedules(context, agent).acancel(made.schedule_id) == CancelOutcome.CANCELLED


class FlakyStore(MemoryScheduleStore):
    """Process memory whose writes to one schedule fail as if its store were down."""

    def __init__(self) -> None:
        super().__init__()
        self.broken: set[str] = set()

    async def acas(self, old: Schedule, new: Schedule | None, **kwargs: Any) -> bool:
        if old.schedule_id in self.broken:
            raise StoreUnavailableError("database is unavailable; nothing was written")
        return await super().acas(old, new, **kwargs)


async def test_a_store_failure_on_one_schedule_spares_the_others(clock: FakeClock) -> None:
    """The failing schedule is logged and left for the next poll; the others fire."""
    db = InMemoryDb()
    store = FlakyStore()
    schedules_ = Schedules(store, session_id=SESSION, settings=SETTINGS, clock=clock)
    bad = await schedules_.aadd(in_=5, input="bad")
    await schedules_.aadd(in_=5, input="good")
    store.broken.add(bad.schedule_id)
    fire = AgentFirer(db)
    loop = Scheduler(db, fire, store=store, settings=SETTINGS, clock=clock)
    clock.advance(5)
    with capture_logs() as logs:
        assert await loop.run_once() == 1
    assert [f.schedule.input for f in fire.firings] == ["good"]
    assert any(e.get("schedule_id") == bad.schedule_id for e in logs)
    store.broken.clear()
    assert await loop.run_once() == 1
    assert [f.schedule.input for f in fire.firings] == ["good", "bad"]


async def test_a_run_that_outlives_fire_timeout_is_cancelled_and_retried(
    clock: FakeClock,
) -> None:
    """fire_timeout bounds the app's callback: the run is cancelled, then retried."""
    db = InMemoryDb()
    settings = ScheduleSettings(claim_ttl=5.0, fire_timeout=0.05, backoff_base=30)
    schedules_ = Schedules(schedule_store(db), session_id=SESSION, settings=settings, clock=clock)
    item = await schedules_.aadd(in_=1, input="hangs")
    cancelled: list[bool] = []

    async def hang(firing: Firing) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    clock.advance(1)
    assert await Scheduler(db, hang, settings=settings, clock=clock).run_once() == 1
    retry = await schedules_.aget(item.schedule_id)
    assert cancelled == [True]
    assert retry is not None and retry.due_at == clock.now + 30
    assert retry.last_error == "the run took longer than 0.05 s"


def test_fire_timeout_must_stay_below_the_claim() -> None:
    """A run may never outlive its claim: the settings refuse it."""
    with pytest.raises(ValueError, match="fire_timeout"):
        ScheduleSettings(claim_ttl=60, fire_timeout=60)


async def test_stop_right_after_start_ends_the_loop(world: World, clock: FakeClock) -> None:
    """A stop() before the loop's task first runs is not forgotten (it used to poll forever)."""
    db = world.open()
    loop = scheduler(db, AgentFirer(db), clock)
    task = loop.start()
    async with asyncio.timeout(30):  # in this task: stop() runs before the loop's first step
        await loop.stop()
    assert task.done()
