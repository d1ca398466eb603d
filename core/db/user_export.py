"""Moved to :mod:`core.governance.user_export`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.user_export import export_user as export_user
