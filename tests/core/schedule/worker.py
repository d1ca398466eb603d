"""A scheduler process for the multi-process test: polls until nothing is left to fire.

    python -m tests.core.schedule.worker KIND LOCATION [PREFIX]

KIND is ``sqlite`` (LOCATION: the file), ``postgres`` (LOCATION: URL, PREFIX: schema)
or ``redis+sqlite`` (LOCATION: Redis URL, PREFIX: key prefix, durable file beside the
``STATEBOT_TEST_DURABLE`` path). Prints the ids it fired, one JSON list, on exit.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from core.db.base import BaseDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.schedule import Firing, Scheduler, ScheduleSettings, schedule_store
from tests.core.schedule.helpers import AgentFirer


def open_db(kind: str, location: str, extra: str | None) -> BaseDb:
    """The store a bot process of this backend would open."""
    if kind == "sqlite":
        return SqliteDb(db_file=location)
    if kind == "postgres":
        return PostgresDb(db_url=location, schema=extra)
    durable = SqliteDb(db_file=os.environ["STATEBOT_TEST_DURABLE"])
    return RedisDb(
        db_url=location, key_prefix=extra or "", snapshot_to=durable, run_snapshotter=False
    )


async def main(kind: str, location: str, extra: str | None) -> list[str]:
    db = open_db(kind, location, extra)
    agent_fire = AgentFirer(db)
    fired: list[str] = []

    async def fire(firing: Firing) -> None:
        await agent_fire(firing)
        fired.append(firing.schedule.schedule_id)

    settings = ScheduleSettings(batch=20)
    scheduler = Scheduler(db, fire, settings=settings)
    store = schedule_store(db)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        await scheduler.run_once()
        if not await store.adue(time.time() + 3600, 1):
            break
        await asyncio.sleep(0.01)
    await db.aclose()
    return fired


if __name__ == "__main__":
    args = sys.argv[1:]
    result = asyncio.run(main(args[0], args[1], args[2] if len(args) > 2 else None))
    print(json.dumps(result))
