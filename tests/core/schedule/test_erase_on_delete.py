"""Deleting a session through the admin path (/state reset, CLI, console) erases its schedules."""

from __future__ import annotations

from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.governance.sessions import delete_session
from core.schedule import Scheduler, Schedules, ScheduleSettings, schedule_store
from tests.core.schedule.conftest import FakeClock, World
from tests.core.schedule.helpers import AgentFirer

SESSION = "slack:T1:C1:1700000000.000200"
OTHER = "slack:T1:C2:1700000000.000300"
SETTINGS = ScheduleSettings(max_attempts=3, backoff_base=30, backoff_cap=600, max_late=3600)


def book(db: BaseDb, session_id: str, clock: FakeClock) -> Schedules:
    return Schedules(
        schedule_store(db),
        session_id=session_id,
        owner_id="reminders",
        user_id="slack:T1:U1",
        settings=SETTINGS,
        clock=clock,
    )


async def test_admin_delete_erases_the_sessions_schedules_only(
    world: World, clock: FakeClock
) -> None:
    db = world.open()
    for session_id in (SESSION, OTHER):
        await db.asave(session_id, expected_version=0, changed=encode_delta({"tasks": []}))
        await book(db, session_id, clock).aadd(in_=5, input="remind me")
    await book(db, SESSION, clock).aadd(cron="* * * * *", input="every minute")

    await delete_session(db, SESSION)

    assert await book(db, SESSION, clock).alist() == []
    kept = await book(db, OTHER, clock).alist()
    assert [s.input for s in kept] == ["remind me"]
    clock.advance(3600)
    fire = AgentFirer(db)
    scheduler = Scheduler(db, fire, settings=SETTINGS, clock=clock)
    await scheduler.run_once()
    assert {f.schedule.session_id for f in fire.firings} == {OTHER}
