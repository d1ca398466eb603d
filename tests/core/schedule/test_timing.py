"""Time rules: first due time, timezones, cron across DST, backoff."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from core.schedule.errors import ScheduleError
from core.schedule.timing import backoff, first_due, next_cron, pick_tz

NOW = datetime(2026, 3, 27, 12, 0, tzinfo=UTC).timestamp()
MADRID = "Europe/Madrid"


def test_in_takes_a_timedelta_or_seconds() -> None:
    """in_= counts from now, as a timedelta or a number of seconds."""
    assert first_due(at=None, in_=timedelta(hours=2), cron=None, tz="UTC", now=NOW) == NOW + 7200
    assert first_due(at=None, in_=90, cron=None, tz="UTC", now=NOW) == NOW + 90


def test_naive_at_is_wall_clock_in_the_schedule_timezone() -> None:
    """A naive datetime is read in the schedule's tz; an aware one keeps its own."""
    naive = datetime(2026, 3, 28, 9, 0)
    due = first_due(at=naive, in_=None, cron=None, tz=MADRID, now=NOW)
    assert datetime.fromtimestamp(due, UTC) == datetime(2026, 3, 28, 8, 0, tzinfo=UTC)
    aware = datetime(2026, 3, 28, 9, 0, tzinfo=UTC)
    assert first_due(at=aware, in_=None, cron=None, tz=MADRID, now=NOW) == aware.timestamp()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"at": None, "in_": None, "cron": None}, "exactly one"),
        ({"at": None, "in_": 5, "cron": "* * * * *"}, "exactly one"),
        ({"at": None, "in_": 0, "cron": None}, "positive"),
        ({"at": None, "in_": -3, "cron": None}, "positive"),
        ({"at": datetime(2020, 1, 1, tzinfo=UTC), "in_": None, "cron": None}, "in the past"),
        ({"at": None, "in_": None, "cron": "every day"}, "invalid cron"),
        ({"at": None, "in_": None, "cron": "0 0 30 2 *"}, "cron"),
    ],
)
def test_bad_requests_say_what_is_wrong(kwargs: dict[str, object], message: str) -> None:
    """Each bad request names its problem."""
    with pytest.raises(ScheduleError, match=message):
        first_due(tz="UTC", now=NOW, **kwargs)  # type: ignore[arg-type]


def test_timezone_precedence_and_unknown_names() -> None:
    """Explicit tz > the user's tz > the default; unknown names are refused."""
    assert pick_tz("Asia/Tokyo", MADRID, "UTC") == "Asia/Tokyo"
    assert pick_tz(None, MADRID, "UTC") == MADRID
    assert pick_tz(None, None, "UTC") == "UTC"
    with pytest.raises(ScheduleError, match="unknown timezone 'Mars/Olympus'"):
        pick_tz("Mars/Olympus", None, "UTC")


def test_daily_cron_stays_at_local_nine_across_the_spring_dst_change() -> None:
    """'0 9 * * *' in Madrid: 08:00 UTC before 29 March 2026, 07:00 UTC after."""
    first = next_cron("0 9 * * *", MADRID, NOW)
    second = next_cron("0 9 * * *", MADRID, first)
    third = next_cron("0 9 * * *", MADRID, second)
    assert [datetime.fromtimestamp(t, UTC).hour for t in (first, second, third)] == [8, 7, 7]
    local = [datetime.fromtimestamp(t, ZoneInfo(MADRID)) for t in (first, second, third)]
    assert [(d.day, d.hour) for d in local] == [(28, 9), (29, 9), (30, 9)]


def test_cron_in_the_skipped_hour_runs_once_that_day() -> None:
    """02:30 does not exist in Madrid on 29 March 2026: that day it runs at 03:00."""
    start = datetime(2026, 3, 28, 12, 0, tzinfo=UTC).timestamp()
    due = next_cron("30 2 * * *", MADRID, start)
    assert datetime.fromtimestamp(due, ZoneInfo(MADRID)).strftime("%d %H:%M") == "29 03:00"
    after = next_cron("30 2 * * *", MADRID, due)
    assert datetime.fromtimestamp(after, ZoneInfo(MADRID)).strftime("%d %H:%M") == "30 02:30"


def test_backoff_doubles_up_to_the_cap() -> None:
    """30, 60, 120, ... seconds, never past the cap."""
    assert [backoff(n, 30, 200) for n in (1, 2, 3, 4)] == [30, 60, 120, 200]
