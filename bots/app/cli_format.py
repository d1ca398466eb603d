"""What every ``statebot`` command shares: -h, and how counts and times are shown."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

#: every command answers -h as well as --help (set on each command: click caches its
#: help option on first use, so a command run on its own must carry it too)
HELP_OPTIONS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


def plural(count: int, noun: str) -> str:
    """``1 session``, ``2 sessions``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


_TIMESTAMPS = ("created_at", "updated_at", "saved_at")


def iso_time(value: float | None) -> str | None:
    """A Unix timestamp as ISO 8601 UTC to the second (``2026-01-31T12:00:00Z``)."""
    if value is None:
        return None
    return datetime.fromtimestamp(value, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def with_iso_times(data: Any) -> Any:
    """``data`` with every ``*_at`` timestamp as ISO 8601 UTC, for people to read."""
    if isinstance(data, list):
        return [with_iso_times(item) for item in data]
    if isinstance(data, dict):
        return {k: iso_time(v) if k in _TIMESTAMPS else with_iso_times(v) for k, v in data.items()}
    return data
