"""Redis for polling, the durable store as the authority: schedules of a RedisDb with
a SQL ``snapshot_to``.

* Every change goes to Redis first (the CAS script: the session's lease token and the
  rev are checked there, atomically) and then to the durable table (the same CAS on
  rev). A schedule fires only if both accepted the claim, so exactly-once rests on
  the durable row. When either refuses, Redis is rewritten from the durable row.
* New schedules, lists and reads go to the durable store; Redis then mirrors them.
* Redis may lose what it held (a flush, a restart without persistence, a write that
  failed after the durable one): a marker key tells a wiped Redis, and the index is
  rebuilt from the durable table on the next poll; every ``resync_every`` seconds the
  durable due rows are mirrored again, so a lost write delays a run by at most that.
  Both only write where Redis holds an older revision (or none): Redis ahead of the
  durable row is another scheduler's change in flight, which a resync must not undo.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from core.db.records import Lease
from core.db.redis.store import RedisDb
from core.schedule.model import Schedule
from core.schedule.redis_store import RedisScheduleStore
from core.schedule.sql_store import SqlScheduleStore
from core.schedule.store import ScheduleStore
from core.utils.log import log_warning

#: index entries rebuilt per pipeline after Redis lost the index
_REBUILD_BATCH = 500


class LayeredScheduleStore(ScheduleStore):
    """A Redis due index in front of the durable schedules table."""

    __slots__ = ("_last_sync", "_marker", "_redis", "clock", "durable", "hot", "resync_every")

    def __init__(
        self,
        db: RedisDb,
        durable: SqlScheduleStore,
        *,
        resync_every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis = db
        self.hot = RedisScheduleStore(db)
        self.durable = durable
        self.resync_every = resync_every
        self.clock = clock
        self._marker = f"{db.key_prefix}sched:indexed"
        self._last_sync: float | None = None

    def __repr__(self) -> str:
        return f"LayeredScheduleStore({self.hot!r}, {self.durable!r})"

    async def aadd(self, schedule: Schedule, *, max_per_session: int) -> None:
        await self.durable.aadd(schedule, max_per_session=max_per_session)
        await self._mirror_quietly(schedule.schedule_id, schedule.session_id, schedule)

    async def _mirror_quietly(
        self, schedule_id: str, session_id: str, row: Schedule | None
    ) -> None:
        """Copy the durable row to Redis; on failure the next resync copies it."""
        try:
            await self.hot.amirror(schedule_id, session_id, row)
        except Exception as exc:  # the durable row is the truth; the index catches up
            log_warning(
                "schedule index not updated; the next resync repairs it",
                schedule_id=schedule_id,
                session_id=session_id,
                error=str(exc),
            )

    async def _repair(self, schedule: Schedule, *, ours: bool) -> None:
        """Copy the durable row over Redis. ``ours``: Redis is ahead by our own change,
        which the durable store refused, so it is undone whatever Redis holds; else
        Redis is only brought forward, never back over another scheduler's change
        still on its way to the durable store."""
        row = await self.durable.aget(schedule.session_id, schedule.schedule_id)
        if ours or row is None:
            await self._mirror_quietly(schedule.schedule_id, schedule.session_id, row)
        else:
            await self.hot.acatch_up(row)

    async def aget(self, session_id: str, schedule_id: str) -> Schedule | None:
        return await self.durable.aget(session_id, schedule_id)

    async def alist(self, session_id: str) -> list[Schedule]:
        return await self.durable.alist(session_id)

    async def adue(self, now: float, limit: int) -> list[Schedule]:
        await self._resync_if_due(now, limit)
        return await self.hot.adue(now, limit)

    async def _resync_if_due(self, now: float, limit: int) -> None:
        client: Any = self._redis.clients.get()
        with self._redis.clients.unavailable("check the schedule index"):
            indexed = bool(await client.exists(self._marker))
        if not indexed:
            # a Redis that never held the index, or lost it: rebuild it all
            rows = await self.durable.aall_pending()
            for start in range(0, len(rows), _REBUILD_BATCH):
                await self.hot.acatch_up_many(rows[start : start + _REBUILD_BATCH])
            with self._redis.clients.unavailable("mark the schedule index"):
                await client.set(self._marker, "1")
            self._last_sync = self.clock()
            return
        moment = self.clock()
        if self._last_sync is not None and moment - self._last_sync < self.resync_every:
            return
        self._last_sync = moment
        for row in await self.durable.adue(now, limit):
            await self.hot.acatch_up(row)

    async def acas(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool:
        # LeaseLostError from Redis (where the lease lives) ends it here, nothing written
        written = await self.hot.acas_or_behind(old, new, lease=lease)
        if written is None:
            # Redis holds an older revision (or none): the durable row decides, so bring
            # Redis forward and let the caller decide again
            await self._repair(old, ours=False)
            return False
        if not written:
            return False  # another scheduler moved it on: nothing to repair
        # the lease was checked in Redis just now, where the lease lives
        if not await self.durable.acas(old, new):
            await self._repair(old, ours=True)
            return False
        return True

    async def adelete_for_session(self, session_id: str) -> int:
        erased = await self.durable.adelete_for_session(session_id)
        await self.hot.adelete_for_session(session_id)
        return erased

    async def aclose(self) -> None:
        await self.hot.aclose()
