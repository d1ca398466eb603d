"""The storage seam of schedules: one small protocol, a compare-and-set at its heart.

Every change is ``acas(old, new)``: written only if the stored ``rev`` is still
``old.rev`` (``new`` None deletes). Given a ``lease``, the write also checks, in the
same atomic step, that the lease is still the session's live one (fencing: a
scheduler whose lease expired cannot claim). What changes is decided by
``core/schedule/transitions.py``; stores only keep records and order them by due time.
"""

from __future__ import annotations

import abc
import threading

from core.db.records import Lease
from core.schedule.errors import ScheduleLimitError
from core.schedule.model import Schedule


class ScheduleStore(abc.ABC):
    """Where schedules live. All methods are safe to call from several processes."""

    @abc.abstractmethod
    async def aadd(self, schedule: Schedule, *, max_per_session: int) -> None:
        """Store a new schedule; ScheduleLimitError when its session is full."""

    @abc.abstractmethod
    async def aget(self, session_id: str, schedule_id: str) -> Schedule | None:
        """One schedule of a session, or None."""

    @abc.abstractmethod
    async def alist(self, session_id: str) -> list[Schedule]:
        """A session's schedules, soonest first."""

    @abc.abstractmethod
    async def adue(self, now: float, limit: int) -> list[Schedule]:
        """Up to ``limit`` schedules whose ``due_at`` has passed, earliest first."""

    @abc.abstractmethod
    async def acas(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool:
        """Replace ``old`` by ``new`` (None: delete) if the stored rev is ``old.rev``.

        False when the stored schedule changed or is gone; LeaseLostError when
        ``lease`` is given and no longer held (nothing is written either way).
        """

    @abc.abstractmethod
    async def adelete_for_session(self, session_id: str) -> int:
        """Erase every schedule of a session (the session is being deleted); how many."""

    async def aclose(self) -> None:  # noqa: B027 - most stores share their db's connections
        """Release what the store holds of its own."""


class MemoryScheduleStore(ScheduleStore):
    """Schedules in process memory, for InMemoryDb and a private in-memory SQLite."""

    __slots__ = ("_by_id", "_lock")

    def __init__(self) -> None:
        self._by_id: dict[tuple[str, str], Schedule] = {}
        # a thread lock: nothing awaits inside, and callers may run on different loops
        self._lock = threading.Lock()

    async def aadd(self, schedule: Schedule, *, max_per_session: int) -> None:
        with self._lock:
            held = sum(1 for sid, _ in self._by_id if sid == schedule.session_id)
            if held >= max_per_session:
                raise ScheduleLimitError(schedule.session_id, max_per_session)
            self._by_id[(schedule.session_id, schedule.schedule_id)] = schedule

    async def aget(self, session_id: str, schedule_id: str) -> Schedule | None:
        return self._by_id.get((session_id, schedule_id))

    async def alist(self, session_id: str) -> list[Schedule]:
        mine = [s for (sid, _), s in self._by_id.items() if sid == session_id]
        return sorted(mine, key=lambda s: (s.nominal_at, s.schedule_id))

    async def adue(self, now: float, limit: int) -> list[Schedule]:
        due = [s for s in self._by_id.values() if s.due_at <= now]
        return sorted(due, key=lambda s: (s.due_at, s.schedule_id))[:limit]

    async def acas(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool:
        # an in-process store is guarded by the in-process session lock: no token to check
        key = (old.session_id, old.schedule_id)
        with self._lock:
            stored = self._by_id.get(key)
            if stored is None or stored.rev != old.rev:
                return False
            if new is None:
                del self._by_id[key]
            else:
                self._by_id[key] = new
            return True

    async def adelete_for_session(self, session_id: str) -> int:
        with self._lock:
            mine = [key for key in self._by_id if key[0] == session_id]
            for key in mine:
                del self._by_id[key]
            return len(mine)
