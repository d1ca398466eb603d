"""Reading due dates and reminder times: natural phrases, ISO, timezones, bad input."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tools.taskboard.dates import WhenError, parse_when

# Monday 23 November 2026, 10:00 UTC (11:00 in Madrid, 05:00 in New York)
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("UTC"))


@pytest.mark.parametrize(
    ("text", "tz", "expected"),
    [
        ("tomorrow 9am", "Europe/Madrid", "2026-11-24T09:00:00+01:00"),
        ("in 2 hours", "Europe/Madrid", "2026-11-23T13:00:00+01:00"),
        ("in 2h", "UTC", "2026-11-23T12:00:00+00:00"),
        ("friday", "Europe/Madrid", "2026-11-27T09:00:00+01:00"),
        ("next monday 10:30", "UTC", "2026-11-30T10:30:00+00:00"),
        ("2026-12-01T15:00", "America/New_York", "2026-12-01T15:00:00-05:00"),
        ("2026-12-01", "UTC", "2026-12-01T09:00:00+00:00"),
        ("3pm", "America/New_York", "2026-11-23T15:00:00-05:00"),
    ],
)
def test_phrases_read_in_the_users_timezone(text: str, tz: str, expected: str) -> None:
    """Each phrase is a wall-clock time in the user's zone; a bare day means 09:00."""
    assert parse_when(text, now=NOW, tz=tz).isoformat() == expected


def test_same_phrase_different_zones_are_different_instants() -> None:
    """Tomorrow 9am in Madrid and in New York are six hours apart."""
    madrid = parse_when("tomorrow 9am", now=NOW, tz="Europe/Madrid")
    new_york = parse_when("tomorrow 9am", now=NOW, tz="America/New_York")
    assert (new_york - madrid).total_seconds() == 6 * 3600


@pytest.mark.parametrize(
    ("text", "tz", "message"),
    [
        ("banana", "UTC", "could not read 'banana'"),
        ("", "UTC", "say when"),
        ("2020-01-01", "UTC", "already past"),
        ("friday", "Mars/Olympus", "unknown timezone"),
    ],
)
def test_unreadable_or_past_times_say_what_works(text: str, tz: str, message: str) -> None:
    """Bad input raises WhenError naming the problem (and examples where useful)."""
    with pytest.raises(WhenError, match=message):
        parse_when(text, now=NOW, tz=tz)
