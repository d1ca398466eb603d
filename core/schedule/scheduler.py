"""The firing loop: due schedules are claimed under their session's lease and fired once.

One :class:`Scheduler` per bot process, started by the app; any number may poll the
same store. For each due schedule:

1. **claim** it inside ``db.session_lock(session_id)``: the claim is a compare-and-set
   fenced by the lease, so it never interleaves with a run of that session (a tool
   that cancels the schedule during a run is seen) and of several schedulers only one
   wins. The lease is let go right after: the run takes it again through the normal
   session path, and so sees the session's current state.
2. **start** it: claimed → firing, refused if a cancel came in between (cancel wins).
3. call the app's ``fire(firing)``; the chat layer runs the agent and posts the reply
   to ``firing.schedule.target``.
4. **finish** (delete, or the next cron time) or **fail** (retry with backoff; after
   ``max_attempts`` tries the run is dropped with a logged error).

A run missed while every process was down fires late with ``firing.late_by`` set, or
is skipped with a log line when more than ``max_late`` old. A scheduler that dies
mid-run leaves a claim that expires after ``claim_ttl``; another scheduler then runs
it again (as a new attempt): a run is started once, unless its process dies during
it. ``fire`` is bounded by ``fire_timeout`` (below ``claim_ttl``): a slow run is
cancelled and retried, never taken over while it still runs. The clock is injected;
tests drive :meth:`Scheduler.run_once` and never sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta

from core.db.base import BaseDb
from core.exceptions import LeaseLostError, LockTimeoutError, SessionBusyError
from core.schedule import transitions
from core.schedule.api import current_settings
from core.schedule.model import Firing, Schedule, Status
from core.schedule.settings import ScheduleSettings
from core.schedule.store import ScheduleStore
from core.schedule.stores import schedule_store
from core.utils.log import log_error, log_info, log_warning

#: what the app gives: run the schedule (the agent on its session, reply to its target)
FireCallback = Callable[[Firing], Awaitable[None]]
#: a test seam called between claim and start (the window in which a cancel still wins)
ClaimHook = Callable[[Schedule], Awaitable[None]]


class Scheduler:
    """Polls due schedules of ``db`` and fires each once through ``fire``."""

    __slots__ = (
        "_after_claim",
        "_stopping",
        "_task",
        "clock",
        "db",
        "fire",
        "fired",
        "settings",
        "store",
    )

    def __init__(
        self,
        db: BaseDb,
        fire: FireCallback,
        *,
        store: ScheduleStore | None = None,
        settings: ScheduleSettings | None = None,
        clock: Callable[[], float] = time.time,
        after_claim: ClaimHook | None = None,
    ) -> None:
        self.db = db
        self.fire = fire
        self.store = store or schedule_store(db)
        self.settings = settings or current_settings()
        self.clock = clock
        self.fired = 0
        self._after_claim = after_claim
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- the loop ---------------------------------------------------------------------
    async def run_once(self) -> int:
        """One poll: handle every due schedule (up to ``batch``); how many runs it started."""
        due = await self.store.adue(self.clock(), self.settings.batch)
        if not due:
            return 0
        # schedulers polling together see the same list: each takes it in its own order,
        # so they mostly claim different schedules instead of queueing on the same leases
        random.shuffle(due)
        gate = asyncio.Semaphore(self.settings.concurrency)

        async def one(schedule: Schedule) -> bool:
            async with gate:
                return await self._handle(schedule)

        results = await asyncio.gather(*(one(s) for s in due), return_exceptions=True)
        for schedule, result in zip(due, results, strict=True):
            if isinstance(result, BaseException):
                # a store outage on one schedule leaves it for the next poll; its claim
                # (if taken) expires after claim_ttl, so it is never stuck
                log_warning(
                    "scheduled run not handled; retrying at the next poll",
                    **_fields(schedule),
                    error=f"{type(result).__name__}: {result}",
                )
        return sum(1 for result in results if result is True)

    async def run(self) -> None:
        """Poll every ``poll_interval`` seconds until :meth:`stop`; errors are logged."""
        while not self._stopping.is_set():
            try:
                await self.run_once()
            except Exception as exc:  # a store outage must not end the loop
                log_warning("scheduler poll failed; retrying", error=str(exc))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.settings.poll_interval)

    def start(self) -> asyncio.Task[None]:
        """Run the loop in a task of the running event loop."""
        if self._task is None or self._task.done():
            # cleared here, not in run(): a stop() between this and the task's first
            # step must not be forgotten (the task would then poll forever)
            self._stopping.clear()
            self._task = asyncio.get_running_loop().create_task(self.run(), name="scheduler")
        return self._task

    async def stop(self) -> None:
        """Stop polling and wait for the current poll (and the runs it fired) to end."""
        self._stopping.set()
        if self._task is not None:
            await self._task
            self._task = None

    # -- one schedule -----------------------------------------------------------------
    async def _handle(self, schedule: Schedule) -> bool:
        now = self.clock()
        settings = self.settings
        if schedule.status != Status.PENDING and schedule.cancel_requested:
            # cancelled while firing, and its scheduler vanished: nothing more to run
            await self.store.acas(schedule, None)
            return False
        if schedule.status == Status.PENDING and transitions.too_late(
            schedule, now=now, settings=settings
        ):
            if await self.store.acas(schedule, transitions.skip(schedule, now=now)):
                log_warning(
                    "scheduled run skipped: missed by more than max_late",
                    **_fields(schedule),
                    late_seconds=round(now - schedule.nominal_at),
                    max_late=settings.max_late,
                )
            return False
        if schedule.status != Status.PENDING and schedule.attempts >= settings.max_attempts:
            await self._settle(schedule, "its scheduler stopped during the last attempt")
            return False
        claimed = await self._claim(schedule)
        if claimed is None:
            return False
        if self._after_claim is not None:
            await self._after_claim(claimed)
        started = await self._start(claimed)
        if started is None:
            return False
        late = self.clock() - started.nominal_at
        late_by = timedelta(seconds=late) if late > settings.late_tolerance else None
        budget = asyncio.timeout(settings.fire_timeout)
        try:
            async with budget:
                await self.fire(Firing(started, late_by))
        except Exception as exc:
            # the app's own TimeoutError is its failure; only ours says the budget ran out
            expired = budget.expired()
            reason = f"{type(exc).__name__}: {exc}"
            if expired:
                reason = f"the run took longer than {settings.fire_timeout:g} s"
            await self._settle(started, reason)
            return True
        await self._settle(started, None)
        self.fired += 1
        return True

    async def _claim(self, schedule: Schedule) -> Schedule | None:
        """Take the schedule under its session's lease; None when someone else has it."""
        token = uuid.uuid4().hex
        try:
            async with self.db.session_lock(
                schedule.session_id, timeout=self.settings.lease_wait
            ) as lease:
                claimed = transitions.claim(
                    schedule, now=self.clock(), token=token, claim_ttl=self.settings.claim_ttl
                )
                if claimed is None or not await self.store.acas(schedule, claimed, lease=lease):
                    return None
                return claimed
        except (SessionBusyError, LockTimeoutError, LeaseLostError):
            return None  # the session is busy or the lease slipped: the next poll retries

    async def _start(self, claimed: Schedule) -> Schedule | None:
        """Claimed → firing; None (and a log line) when a cancel or another scheduler
        came first."""
        current: Schedule | None = claimed
        while current is not None:
            started = transitions.start(current, token=claimed.claim_token)
            if started is None:
                log_info("scheduled run taken over before it started", **_fields(claimed))
                return None
            if await self.store.acas(current, started):
                return started
            # the stored copy changed (or a hot index was behind): decide again from it
            current = await self.store.aget(claimed.session_id, claimed.schedule_id)
        log_info("scheduled run cancelled before it started", **_fields(claimed))
        return None

    async def _settle(self, running: Schedule, error: str | None) -> None:
        """Record how the run ended (success when ``error`` is None)."""
        current: Schedule | None = running
        while current is not None and current.claim_token == running.claim_token:
            now = self.clock()
            if error is None:
                revised, dropped = transitions.finish(current, now=now), False
            else:
                revised, dropped = transitions.fail(
                    current, now=now, error=error, settings=self.settings
                )
            if await self.store.acas(current, revised):
                if dropped:
                    log_error(
                        "scheduled run dropped after repeated failures",
                        **_fields(current),
                        attempts=current.attempts,
                        error=error,
                    )
                elif error is not None and revised is not None:
                    log_warning(
                        "scheduled run failed; retrying",
                        **_fields(current),
                        attempts=current.attempts,
                        retry_in=round(revised.due_at - now, 3),
                        error=error,
                    )
                return
            # changed meanwhile (a cancel marked it): decide again from the stored row
            current = await self.store.aget(running.session_id, running.schedule_id)


def _fields(schedule: Schedule) -> dict[str, object]:
    return {
        "schedule_id": schedule.schedule_id,
        "session_id": schedule.session_id,
        "owner_id": schedule.owner_id,
    }
