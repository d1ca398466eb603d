"""Reading when something is due: "tomorrow 9am", "in 2 hours", "in 2h", "friday", ISO.

One function, :func:`parse_when`, over dateparser (English), in the user's timezone,
relative to an injected ``now``, preferring the future (``friday`` is the coming one).
A day without a time of day ("friday", "2026-12-01") means 09:00 that day: a
reminder at midnight would wake nobody. What cannot be read, or lies in the past,
raises :class:`WhenError` with an example of what works.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dateparser

#: the hour a date without a time of day stands for
DAY_HOUR = 9
EXAMPLES = '"tomorrow 9am", "in 2 hours", "friday", "2026-12-01 15:00"'

# a time of day written out: 9am, 15:00, noon, midnight
_CLOCK = re.compile(r"\d\s*(am|pm)\b|\d:\d|\bnoon\b|\bmidnight\b", re.IGNORECASE)
_RELATIVE = re.compile(r"^\s*in\s|\bago\b|\bnow\b", re.IGNORECASE)
# "next friday": dateparser reads "friday" (the coming one, as preferred) but not "next"
_NEXT = re.compile(r"^\s*next\s+", re.IGNORECASE)


class WhenError(ValueError):
    """A time that cannot be read or is in the past; the message says what works."""


def zone(name: str) -> ZoneInfo:
    """The IANA zone ``name``; WhenError naming it when unknown."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise WhenError(f"unknown timezone {name!r}") from None


def parse_when(text: str, *, now: datetime, tz: str) -> datetime:
    """``text`` as an aware datetime in ``tz``, later than ``now`` (an aware datetime)."""
    wanted = " ".join(str(text).split())
    if not wanted:
        raise WhenError(f"say when, e.g. {EXAMPLES}")
    local_now = now.astimezone(zone(tz))
    settings = {
        "TIMEZONE": tz,
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": local_now.replace(tzinfo=None),
    }
    found: datetime | None = None
    for attempt in (wanted, _NEXT.sub("", wanted)):
        found = dateparser.parse(attempt, languages=["en"], settings=settings)
        if found is not None:
            break
    if found is None:
        raise WhenError(f"could not read {wanted!r} as a time; try {EXAMPLES}")
    found = found.astimezone(zone(tz))
    if (
        not _CLOCK.search(wanted)
        and not _RELATIVE.search(wanted)
        and found.time() == datetime.min.time()
    ):
        found = found.replace(hour=DAY_HOUR)
    if found <= local_now:
        raise WhenError(f"{wanted!r} is {found:%Y-%m-%d %H:%M %Z}, which is already past")
    return found


def show(when: datetime) -> str:
    """How a time is shown in replies: ``Fri 27 Nov 09:00 CET``."""
    return f"{when:%a %d %b %H:%M %Z}"
