"""Time rules of scheduling: timezones, the first due time, the next cron time, backoff.

All instants are POSIX timestamps. A wall-clock time (a naive ``at``, or a cron
expression) is read in the schedule's timezone, so "every day at 9:00" in
Europe/Madrid stays 9:00 local across daylight-saving changes. Cron expressions are
standard five-field ones, evaluated by ``cronsim`` (the evaluator of healthchecks.io,
which follows Debian cron on DST gaps and overlaps).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from core.schedule.errors import ScheduleError


def zone(name: str) -> ZoneInfo:
    """The IANA timezone ``name`` (``Europe/Madrid``); ScheduleError when unknown."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as exc:
        raise ScheduleError(
            f"unknown timezone {name!r}: use an IANA name such as 'Europe/Madrid' or 'UTC'"
        ) from exc


def pick_tz(explicit: str | None, user_tz: str | None, default: str) -> str:
    """The schedule's timezone: the caller's, else the user's, else the default."""
    name = explicit or user_tz or default
    zone(name)  # refuse an unknown name now, not when the schedule fires
    return name


def check_cron(expression: str) -> str:
    """The expression, or ScheduleError saying what is wrong with it."""
    try:
        CronSim(expression, datetime(2000, 1, 1, tzinfo=ZoneInfo("UTC")))
    except CronSimError as exc:
        raise ScheduleError(f"invalid cron expression {expression!r}: {exc}") from exc
    return expression


def next_cron(expression: str, tz: str, after: float) -> float:
    """The first time strictly after ``after`` that ``expression`` names, in ``tz``."""
    start = datetime.fromtimestamp(after, zone(tz))
    try:
        return next(CronSim(expression, start)).timestamp()
    except (CronSimError, StopIteration) as exc:
        raise ScheduleError(f"cron expression {expression!r} names no future time") from exc


def first_due(
    *,
    at: datetime | None,
    in_: timedelta | float | None,
    cron: str | None,
    tz: str,
    now: float,
) -> float:
    """When a new schedule first runs; exactly one of ``at``, ``in_``, ``cron``.

    A naive ``at`` is a wall-clock time in ``tz``. ``in_`` is a timedelta or seconds.
    A time already past is refused: the caller meant the future.
    """
    given = [n for n, value in (("at", at), ("in_", in_), ("cron", cron)) if value is not None]
    if len(given) != 1:
        raise ScheduleError(
            "give exactly one of at= (a datetime), in_= (a timedelta or seconds) or "
            f"cron= (a cron expression); got {', '.join(given) or 'none'}"
        )
    if cron:
        return next_cron(check_cron(cron), tz, now)
    if at is not None:
        if not isinstance(at, datetime):
            raise ScheduleError(f"at= must be a datetime, not {type(at).__name__}")
        moment = at if at.tzinfo is not None else at.replace(tzinfo=zone(tz))
        due = moment.timestamp()
        if due < now:
            raise ScheduleError(f"at={moment.isoformat()} is in the past; nothing was scheduled")
        return due
    seconds = in_.total_seconds() if isinstance(in_, timedelta) else in_
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds <= 0:
        raise ScheduleError(f"in_= must be a positive timedelta or number of seconds, not {in_!r}")
    return now + float(seconds)


def backoff(attempts: int, base: float, cap: float) -> float:
    """Seconds before retry number ``attempts`` (1, 2, ...): base, 2×base, 4×base, … ≤ cap."""
    return float(min(cap, base * 2 ** max(0, attempts - 1)))
