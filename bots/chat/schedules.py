"""The chat side of scheduled runs: run the agent on the schedule's session, post the reply.

Each bot process runs one :class:`core.schedule.Scheduler` (started by ``bots.app.build``)
whose ``fire`` is :meth:`ScheduledRuns.fire`:

1. the target: the one stored with the schedule, else the one its session id names
   (:mod:`bots.chat.targets`);
2. the run: :meth:`bots.chat.service.ChatService.handle_scheduled`, the same session path
   as a message or a slash command (lease, current state, save);
3. the reply: handed to the delivery of the target's platform, which each adapter
   registers (:meth:`Deliveries.register`) and which is its normal reply path
   (formatting, chunking, retries on 429).

A process fires only the schedules whose platform it can deliver to
(:class:`PlatformSchedules` filters the due list), so a Slack process never claims a
Discord reminder; schedules with no platform at all are fired by any process and
their reply, with nowhere to go, is logged. A run that fails raises, and the
scheduler retries it with backoff. A reply that cannot be delivered after the
adapter's own retries is logged with the schedule id, and not retried: the run was
applied, and running it again would apply it twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

import structlog

from bots.chat.replies import Reply
from bots.chat.targets import target_from_session
from core.db.records import Lease
from core.schedule import Firing, Schedule, ScheduleStore

log = structlog.get_logger(__name__)

#: posts a reply to a target on one platform (the adapter's normal delivery path)
Deliver = Callable[[Mapping[str, Any], Reply], Awaitable[None]]


class Deliveries:
    """The platforms this process can post to, and how."""

    __slots__ = ("_by_platform",)

    def __init__(self) -> None:
        self._by_platform: dict[str, Deliver] = {}

    def register(self, platform: str, deliver: Deliver) -> None:
        """Post ``platform``'s scheduled replies through ``deliver``."""
        self._by_platform[platform] = deliver

    def get(self, platform: str) -> Deliver | None:
        """The delivery of ``platform``, or None."""
        return self._by_platform.get(platform)

    def accepts(self, schedule: Schedule) -> bool:
        """True when this process can post ``schedule``'s reply (or it has no platform)."""
        platform = resolve_target(schedule).get("platform")
        return not platform or platform in self._by_platform


def resolve_target(schedule: Schedule) -> dict[str, Any]:
    """The stored target, else the one the session id names, else ``{}``."""
    return schedule.target or target_from_session(schedule.session_id) or {}


class ScheduledRunner(Protocol):
    """What firing needs of the service (``ChatService`` is one): run a due schedule.

    A protocol, so this module stays below the service that imports its ``Deliveries``."""

    async def handle_scheduled(
        self, schedule: Schedule, *, target: dict[str, Any], note: str | None = None
    ) -> Reply:
        """Run ``schedule`` on its session; the reply to post."""
        ...


class ScheduledRuns:
    """The scheduler's ``fire`` for the chat processes."""

    __slots__ = ("deliveries", "service")

    def __init__(self, service: ScheduledRunner, deliveries: Deliveries) -> None:
        self.service = service
        self.deliveries = deliveries

    async def fire(self, firing: Firing) -> None:
        """Run the schedule, then post its reply where the schedule says."""
        schedule = firing.schedule
        target = resolve_target(schedule)
        platform = str(target.get("platform") or "")
        deliver = self.deliveries.get(platform)
        if platform and deliver is None:
            # filtered out by PlatformSchedules; a retry lets a process that can post take it
            raise LookupError(f"this process cannot post to {platform!r}")
        reply = await self.service.handle_scheduled(schedule, target=target, note=firing.note)
        bound = log.bind(schedule_id=schedule.schedule_id, session_id=schedule.session_id)
        if deliver is None:
            bound.warning("scheduled_reply_without_target", text=reply.text[:200])
            return
        try:
            await deliver(target, reply)
        except Exception as exc:  # the run is applied; a retry would apply it twice
            bound.error("scheduled_reply_failed", platform=platform, error=repr(exc))
            return
        bound.info("scheduled_reply_posted", platform=platform)


class PlatformSchedules(ScheduleStore):
    """A schedule store whose due list holds only what this process can deliver.

    Runs missed by more than ``max_late`` pass whatever their platform, so that some
    scheduler skips them (with its log line) instead of their staying forever.
    """

    __slots__ = ("_accepts", "_inner", "_max_late")

    def __init__(
        self, inner: ScheduleStore, accepts: Callable[[Schedule], bool], *, max_late: float
    ) -> None:
        self._inner = inner
        self._accepts = accepts
        self._max_late = max_late

    async def aadd(self, schedule: Schedule, *, max_per_session: int) -> None:
        """Store a new schedule (delegated)."""
        await self._inner.aadd(schedule, max_per_session=max_per_session)

    async def aget(self, session_id: str, schedule_id: str) -> Schedule | None:
        """One schedule (delegated)."""
        return await self._inner.aget(session_id, schedule_id)

    async def alist(self, session_id: str) -> list[Schedule]:
        """A session's schedules (delegated)."""
        return await self._inner.alist(session_id)

    async def adue(self, now: float, limit: int) -> list[Schedule]:
        """The due schedules this process can deliver (and those too late for anyone)."""
        return [
            s
            for s in await self._inner.adue(now, limit)
            if self._accepts(s) or now - s.nominal_at > self._max_late
        ]

    async def acas(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool:
        """Compare-and-set (delegated)."""
        return await self._inner.acas(old, new, lease=lease)

    async def adelete_for_session(self, session_id: str) -> int:
        """Erase a session's schedules (delegated)."""
        return await self._inner.adelete_for_session(session_id)
