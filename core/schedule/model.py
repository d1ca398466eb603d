"""What a schedule is: one future run of an agent on one of its sessions.

A schedule is a plain record, the same in every store. Two instants matter:
``nominal_at`` is when the run is meant to happen (what the user asked for) and
``due_at`` is when a scheduler next has to look at it: the nominal time, a retry time
after a failure, or the expiry of a claim. Every change bumps ``rev``; stores write a
change only if the ``rev`` they hold is the one the change was computed from
(compare-and-set), which is what makes a schedule fire once across processes.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo


class Status(enum.StrEnum):
    """Where a schedule is in its life. Finished schedules are deleted, not kept."""

    #: waiting for ``due_at``
    PENDING = "pending"
    #: taken by one scheduler under the session's lease; a cancel still wins
    CLAIMED = "claimed"
    #: its run was handed to the app; it can no longer be stopped
    FIRING = "firing"


class CancelOutcome(enum.StrEnum):
    """What a cancel actually did (told to the user as it is)."""

    #: removed before it fired: it will not run
    CANCELLED = "cancelled"
    #: its run had already started: that run goes on; a repeating schedule stops after it
    ALREADY_FIRING = "already_firing"
    #: no such schedule in this session (never was, already ran, or already cancelled)
    NOT_FOUND = "not_found"


@dataclass(frozen=True, slots=True)
class Schedule:
    """One scheduled run. Times are POSIX timestamps (UTC); ``tz`` says how to show
    them and how a ``cron`` expression is read."""

    schedule_id: str
    session_id: str
    input: str
    nominal_at: float
    due_at: float
    owner_id: str | None = None
    kind: str = "agent"
    user_id: str | None = None
    tz: str = "UTC"
    cron: str | None = None
    #: where the reply goes (channel, thread, DM): a JSON object as text, given by the
    #: chat layer and never interpreted by core ("" when there is none)
    target_text: str = ""
    status: Status = Status.PENDING
    attempts: int = 0
    rev: int = 1
    claim_token: str = ""
    cancel_requested: bool = False
    last_error: str = ""
    created_at: float = 0.0

    @property
    def target(self) -> dict[str, Any]:
        """The platform target, decoded (an empty dict when there is none)."""
        decoded: dict[str, Any] = json.loads(self.target_text) if self.target_text else {}
        return decoded

    @property
    def when(self) -> datetime:
        """The nominal time in the schedule's own timezone."""
        return datetime.fromtimestamp(self.nominal_at, ZoneInfo(self.tz))

    def evolve(self, **changes: Any) -> Schedule:
        """A copy with ``changes`` applied and ``rev`` bumped (the next revision)."""
        return dataclasses.replace(self, rev=self.rev + 1, **changes)


def encode_target(target: Mapping[str, object] | None) -> str:
    """The target as compact JSON text; TypeError names what is not JSON."""
    if target is None:
        return ""
    if not isinstance(target, Mapping):
        raise TypeError(f"target must be a JSON object (a dict), not {type(target).__name__}")
    try:
        return json.dumps(dict(target), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"target must be JSON-serializable: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Firing:
    """What the app's ``fire`` callback receives: the schedule, and how late it is."""

    schedule: Schedule
    #: how long after its nominal time the run starts, when more than the scheduler's
    #: tolerance (the process was down, or earlier attempts failed); else None
    late_by: timedelta | None = None

    @property
    def attempt(self) -> int:
        """1 for the first try, 2 for the first retry, ..."""
        return self.schedule.attempts

    @property
    def note(self) -> str | None:
        """A sentence for the run's input when it starts late; None when on time."""
        if self.late_by is None:
            return None
        return f"(This scheduled run starts {_span(self.late_by)} late.)"


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"
