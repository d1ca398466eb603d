"""Errors of the scheduling API (defined in core.exceptions, re-exported here)."""

from __future__ import annotations

from core.exceptions import ScheduleError as ScheduleError
from core.exceptions import ScheduleLimitError as ScheduleLimitError
