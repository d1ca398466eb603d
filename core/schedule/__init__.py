"""Scheduled runs owned by a session: schedule, list, cancel, and the firing loop.

From a tool: ``schedules(run_context, agent).add(in_=3600, input="Remind me ...")``.
In the app: ``Scheduler(db, fire).start()``. See docs/scheduling.md.
"""

from core.schedule.api import (
    TARGET_KEY,
    USER_TZ_KEY,
    Schedules,
    cancel,
    configure,
    current_settings,
    schedules,
)

# errors live in core.exceptions; these names stay importable from here too
from core.schedule.errors import ScheduleError as ScheduleError
from core.schedule.errors import ScheduleLimitError as ScheduleLimitError
from core.schedule.model import CancelOutcome, Firing, Schedule, Status
from core.schedule.scheduler import FireCallback, Scheduler
from core.schedule.settings import ScheduleSettings
from core.schedule.store import MemoryScheduleStore, ScheduleStore
from core.schedule.stores import erase_session_schedules, schedule_store

__all__ = [
    "TARGET_KEY",
    "USER_TZ_KEY",
    "CancelOutcome",
    "FireCallback",
    "Firing",
    "MemoryScheduleStore",
    "Schedule",
    "ScheduleSettings",
    "ScheduleStore",
    "Scheduler",
    "Schedules",
    "Status",
    "cancel",
    "configure",
    "current_settings",
    "erase_session_schedules",
    "schedule_store",
    "schedules",
]
