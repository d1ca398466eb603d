"""Which schedule store serves a session store: one per db object, chosen in one place.

* SqliteDb / PostgresDb: a table beside the sessions (migration 0007).
* RedisDb with a SQL ``snapshot_to``: a Redis due index in front of that table (the
  authority). RedisDb alone: Redis only, like its sessions.
* InMemoryDb, a private in-memory SQLite: process memory, like their sessions.

The scheduling API and the :class:`~core.schedule.scheduler.Scheduler` both ask here,
so a tool and the app's scheduler always meet in the same store.
"""

from __future__ import annotations

import functools
import threading
import weakref

from core.db.base import BaseDb
from core.db.redis.store import RedisDb
from core.db.sql.store import SqlDb
from core.schedule.layered import LayeredScheduleStore
from core.schedule.redis_store import RedisScheduleStore
from core.schedule.sql_store import SqlScheduleStore
from core.schedule.store import MemoryScheduleStore, ScheduleStore

_stores: weakref.WeakKeyDictionary[BaseDb, ScheduleStore] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


@functools.singledispatch
def _table(db: BaseDb) -> SqlScheduleStore | None:
    """The schedules table of a store that can hold one (None: no such table)."""
    return None


@_table.register
def _(db: SqlDb) -> SqlScheduleStore | None:
    # a private in-memory database holds no tables of other concerns
    return None if db.private else SqlScheduleStore(db)


@functools.singledispatch
def _build(db: BaseDb) -> ScheduleStore:
    table = _table(db)
    return MemoryScheduleStore() if table is None else table


@_build.register
def _(db: RedisDb) -> ScheduleStore:
    table = None if db.snapshot_to is None else _table(db.snapshot_to)
    return RedisScheduleStore(db) if table is None else LayeredScheduleStore(db, table)


def schedule_store(db: BaseDb) -> ScheduleStore:
    """The schedule store of ``db`` (the same object on every call)."""
    with _lock:
        store = _stores.get(db)
        if store is None:
            store = _stores[db] = _build(db)
        return store


async def erase_session_schedules(db: BaseDb, session_id: str) -> int:
    """Erase a deleted session's schedules; the hook session deletion calls."""
    return await schedule_store(db).adelete_for_session(session_id)
