"""Moved to :mod:`core.governance.erasure`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.erasure import ERASURE_ACTOR as ERASURE_ACTOR
from core.governance.erasure import ErasureReport as ErasureReport
from core.governance.erasure import erase_user as erase_user
from core.governance.erasure import participants as participants
from core.governance.erasure import sessions_naming as sessions_naming
