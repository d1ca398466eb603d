"""Errors of schedules: a request that cannot be accepted."""

from __future__ import annotations

__all__ = [
    "ScheduleError",
    "ScheduleLimitError",
]


class ScheduleError(ValueError):
    """A schedule request that cannot be accepted; nothing was stored."""


class ScheduleLimitError(ScheduleError):
    """A session already holds as many schedules as it may."""

    def __init__(self, session_id: str, limit: int) -> None:
        super().__init__(
            f"session {session_id!r} already has {limit} schedules (the limit); cancel one "
            "first. Nothing was scheduled."
        )
        self.session_id = session_id
        self.limit = limit
