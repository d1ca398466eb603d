"""The scheduling API a tool sees: schedule, list and cancel runs of its own session.

    from core.schedule import schedules

    def remind_me(run_context: RunContext, agent: Agent, minutes: int, text: str) -> str:
        \"\"\"Remind the user about something later.\"\"\"
        reminder = schedules(run_context, agent).add(in_=minutes * 60, input=f"Remind: {text}")
        return f"Reminder {reminder.schedule_id} set for {reminder.when:%H:%M %Z}"

A scheduled run is a later run of the same agent (owner) on the same session, with
``input`` as its message, attributed to ``user_id`` (default: the user of the current
run). Where its reply goes (``target``) and the user's timezone come from the run's
metadata, filled by the chat layer under :data:`TARGET_KEY` and :data:`USER_TZ_KEY`;
an explicit ``target=`` / ``tz=`` wins. Every method has an ``a``-prefixed async twin.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from core.run.context import RunContext
from core.schedule import transitions
from core.schedule.errors import ScheduleError
from core.schedule.model import CancelOutcome, Schedule, encode_target
from core.schedule.settings import ScheduleSettings
from core.schedule.store import ScheduleStore
from core.schedule.stores import schedule_store
from core.schedule.timing import first_due, pick_tz
from core.utils.sync import run_sync

#: run metadata key under which the chat layer puts the platform target (a JSON object)
TARGET_KEY = "schedule_target"
#: run metadata key under which the chat layer puts the user's IANA timezone
USER_TZ_KEY = "user_tz"

_settings = ScheduleSettings()


def configure(settings: ScheduleSettings) -> None:
    """Set the process-wide scheduling settings (the app calls this once at start)."""
    global _settings
    _settings = settings


def current_settings() -> ScheduleSettings:
    """The process-wide scheduling settings."""
    return _settings


class Schedules:
    """The schedules of one session, for one owner (agent, team or workflow)."""

    __slots__ = (
        "clock",
        "kind",
        "owner_id",
        "session_id",
        "settings",
        "store",
        "target",
        "user_id",
        "user_tz",
    )

    def __init__(
        self,
        store: ScheduleStore,
        *,
        session_id: str,
        owner_id: str | None = None,
        kind: str = "agent",
        user_id: str | None = None,
        target: Mapping[str, object] | None = None,
        user_tz: str | None = None,
        settings: ScheduleSettings | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.owner_id = owner_id
        self.kind = kind
        self.user_id = user_id
        self.target = target
        self.user_tz = user_tz
        self.settings = settings or _settings
        self.clock = clock

    async def aadd(
        self,
        *,
        input: str,
        at: datetime | None = None,
        in_: timedelta | float | None = None,
        cron: str | None = None,
        user_id: str | None = None,
        tz: str | None = None,
        target: Mapping[str, object] | None = None,
    ) -> Schedule:
        """Schedule a run with ``input`` at ``at``, in ``in_``, or on every ``cron`` time.

        ScheduleError (a ValueError) says what is wrong with the request; nothing is
        stored then.
        """
        settings = self.settings
        if not isinstance(input, str) or not input.strip():
            raise ScheduleError("input must be a non-empty string: the message of the run")
        if len(input) > settings.max_input:
            raise ScheduleError(
                f"input is {len(input)} characters; at most {settings.max_input} may be scheduled"
            )
        zone_name = pick_tz(tz, self.user_tz, settings.default_tz)
        now = self.clock()
        due = first_due(at=at, in_=in_, cron=cron, tz=zone_name, now=now)
        target_text = encode_target(target if target is not None else self.target)
        if len(target_text.encode()) > settings.max_target:
            raise ScheduleError(f"target is larger than {settings.max_target} bytes")
        schedule = Schedule(
            schedule_id=uuid.uuid4().hex,
            session_id=self.session_id,
            input=input,
            nominal_at=due,
            due_at=due,
            owner_id=self.owner_id,
            kind=self.kind,
            user_id=user_id or self.user_id,
            tz=zone_name,
            cron=cron,
            target_text=target_text,
            created_at=now,
        )
        await self.store.aadd(schedule, max_per_session=settings.max_per_session)
        return schedule

    def add(self, **kwargs: Any) -> Schedule:
        """Sync twin of :meth:`aadd`."""
        return run_sync(self.aadd(**kwargs))

    async def alist(self) -> list[Schedule]:
        """This session's schedules, soonest first."""
        return await self.store.alist(self.session_id)

    def list(self) -> list[Schedule]:
        """Sync twin of :meth:`alist`."""
        return run_sync(self.alist())

    async def aget(self, schedule_id: str) -> Schedule | None:
        """One of this session's schedules, or None."""
        return await self.store.aget(self.session_id, schedule_id)

    async def acancel(self, schedule_id: str) -> CancelOutcome:
        """Cancel a schedule of this session and say what that achieved."""
        return await cancel(self.store, self.session_id, schedule_id)

    def cancel(self, schedule_id: str) -> CancelOutcome:
        """Sync twin of :meth:`acancel`."""
        return run_sync(self.acancel(schedule_id))


async def cancel(store: ScheduleStore, session_id: str, schedule_id: str) -> CancelOutcome:
    """Cancel one schedule: removed if it has not started, else stopped after its run."""
    while True:
        current = await store.aget(session_id, schedule_id)
        if current is None:
            return CancelOutcome.NOT_FOUND
        revised, outcome = transitions.cancel(current)
        if revised is current or await store.acas(current, revised):
            return outcome
        # it changed meanwhile (claimed, started, rescheduled): decide again


def schedules(
    run_context: RunContext, owner: object, *, settings: ScheduleSettings | None = None
) -> Schedules:
    """The current session's schedules, from inside a tool.

    ``owner`` is the agent (or team / workflow) running the tool, injected as the
    tool's ``agent`` / ``team`` parameter: its ``db`` holds the schedules and its
    ``id`` names who runs them.
    """
    db = getattr(owner, "db", None)
    if db is None:
        raise ScheduleError(f"{owner!r} has no db: schedules are stored with the session")
    metadata = run_context.metadata or {}
    target = metadata.get(TARGET_KEY)
    return Schedules(
        schedule_store(db),
        session_id=run_context.session_id,
        owner_id=getattr(owner, "id", None),
        kind=getattr(owner, "kind", "agent"),
        user_id=run_context.user_id,
        target=target if isinstance(target, Mapping) else None,
        user_tz=metadata.get(USER_TZ_KEY) or None,
        settings=settings,
    )
