"""Which hot stores serve a durable store, recorded in the durable store itself.

A tool that opens the durable store alone (``statebot state`` without a Redis URL)
cannot see Redis, yet a write there would not reach the bots when they serve from
Redis: their next run reads Redis, and Redis' copy wins at the next snapshot. So a
process serving through Redis records, when it starts, that this Redis (its address,
never credentials, and its key prefix) fronts the durable store, and the tool reads
the record before such a write. The record is durable and never expires: a
deployment that dropped Redis says so explicitly (``statebot state --durable-only``).

SQL durable stores (SQLite, PostgreSQL) keep it in the fronts table (migration 0009);
other stores are never shared by several processes and record nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.db.base import BaseDb

__all__ = ["Front", "afronts", "arecord_front"]


@dataclass(frozen=True, slots=True)
class Front:
    """A Redis that served a durable store: where, under which key prefix, seen by whom
    (a host name) and when (Unix seconds) last."""

    address: str
    key_prefix: str
    seen_by: str
    seen_at: float


async def arecord_front(store: BaseDb, *, seen_by: str, now: float | None = None) -> Front | None:
    """Record in ``store``'s durable store that ``store`` (a RedisDb) fronts it; None,
    recording nothing, when ``store`` is not Redis over a SQL store."""
    from core.db.redis.store import RedisDb
    from core.db.sql.fronts import record_front
    from core.db.sql.store import SqlDb

    if not isinstance(store, RedisDb) or not isinstance(store.snapshot_to, SqlDb):
        return None
    front = Front(store.location, store.key_prefix, seen_by, time.time() if now is None else now)
    await record_front(
        store.snapshot_to, (front.address, front.key_prefix, front.seen_by, front.seen_at)
    )
    return front


async def afronts(store: BaseDb) -> list[Front]:
    """The hot stores recorded as serving ``store`` (a durable store), most recent first."""
    from core.db.sql.fronts import read_fronts
    from core.db.sql.store import SqlDb

    if not isinstance(store, SqlDb):
        return []
    return [Front(*row) for row in await read_fronts(store)]
