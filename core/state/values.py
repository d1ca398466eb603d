"""Moved to :mod:`core.db.values`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.db.values import TRANSIENT_KEYS as TRANSIENT_KEYS
from core.db.values import StateValueError as StateValueError
