"""Which schedule store serves a session store: one per db object, chosen in one place.

* SqliteDb / PostgresDb: a table beside the sessions (migration 0007).
* RedisDb with a SQL ``snapshot_to``: a Redis due index in front of that table (the
  authority). RedisDb alone: Redis only, like its sessions.
* InMemoryDb, a private in-memory SQLite: process memory, like their sessions.

The scheduling API and the :class:`~core.schedule.scheduler.Scheduler` both ask here,
so a tool and the app's scheduler always meet in the same store.
"""

from __future__ import annotations

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


def _build(db: BaseDb) -> ScheduleStore:
    if isinstance(db, RedisDb):
        durable = db.snapshot_to
        if isinstance(durable, SqlDb) and not durable._private:
            return LayeredScheduleStore(db, SqlScheduleStore(durable))
        return RedisScheduleStore(db)
    if isinstance(db, SqlDb) and not db._private:
        return SqlScheduleStore(db)
    return MemoryScheduleStore()


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
