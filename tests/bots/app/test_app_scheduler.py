"""build_app starts the scheduler in a serving process, and only there."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from bots.app.build import build_app
from bots.settings import Settings
from core.db.in_memory import InMemoryDb


def _running(name: str) -> bool:
    return any(t.get_name() == name and not t.done() for t in asyncio.all_tasks())


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met")


async def test_serving_app_starts_the_scheduler_once_the_store_answers(tmp_path: Path) -> None:
    """Its own store and a running loop: the loop starts; stop() ends it."""
    settings = Settings(redis_url=None, statebot_db_url=f"sqlite:///{tmp_path / 's.db'}")
    app = build_app(settings)
    assert app.scheduler is not None
    try:
        await _until(lambda: _running("scheduler"))
    finally:
        await app.scheduler.stop()
        await app.db.aclose()
    assert not _running("scheduler")


async def test_app_on_a_given_store_or_switched_off_does_not_fire() -> None:
    """Tests and the console pass their store; STATEBOT_SCHEDULER=false turns it off."""
    given = build_app(Settings(redis_url=None), db=InMemoryDb())
    assert given.scheduler is not None and not _running("scheduler-start")
    off = Settings(redis_url=None, statebot_scheduler=False, statebot_db_url="sqlite://")
    app = build_app(off)
    assert not _running("scheduler-start") and not _running("scheduler")
    await app.db.aclose()
