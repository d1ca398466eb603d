"""Which usage store serves a session store: one per db object, chosen in one place.

* SqliteDb / PostgresDb: a table beside the sessions (migration 0008).
* RedisDb (with or without a durable ``snapshot_to``): Redis hashes with a 2-day
  expiry (:mod:`core.governance.budgets.redis_usage`, which says what a Redis restart does).
* InMemoryDb, a private in-memory SQLite: process memory, like their sessions.

The runner, ``usage_report`` and ``statebot state usage`` all ask here, so they
always meet in the same counters.
"""

from __future__ import annotations

import functools
import threading
import time
import weakref
from collections.abc import Iterable

from core.db.base import BaseDb
from core.db.redis.store import RedisDb
from core.db.sql.store import SqlDb
from core.governance.budgets.model import Scope, utc_day
from core.governance.budgets.redis_usage import RedisUsageStore
from core.governance.budgets.sql_usage import SqlUsageStore
from core.governance.budgets.store import MemoryUsageStore, UsageStore

_stores: weakref.WeakKeyDictionary[BaseDb, UsageStore] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


@functools.singledispatch
def _build(db: BaseDb) -> UsageStore:
    """Counters in process memory: a store with no room for them (InMemoryDb)."""
    return MemoryUsageStore()


@_build.register
def _(db: RedisDb) -> UsageStore:
    return RedisUsageStore(db)


@_build.register
def _(db: SqlDb) -> UsageStore:
    # a private in-memory database holds no tables of other concerns
    return MemoryUsageStore() if db.private else SqlUsageStore(db)


def usage_store(db: BaseDb) -> UsageStore:
    """The usage store of ``db`` (the same object on every call)."""
    with _lock:
        store = _stores.get(db)
        if store is None:
            store = _stores[db] = _build(db)
        return store


async def erase_usage(
    db: BaseDb, *, user_id: str | None = None, session_ids: Iterable[str] = ()
) -> int:
    """Delete a user's and sessions' usage counters in ``db`` (erasure); how many went.

    Channel counters name no person and stay.
    """
    scopes = [Scope("session", session_id) for session_id in session_ids]
    if user_id:
        scopes.append(Scope("user", user_id))
    return await usage_store(db).aerase(scopes, utc_day(time.time()))
