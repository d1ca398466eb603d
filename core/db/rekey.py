"""Moved to :mod:`core.governance.rekey`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.db.maintenance import RekeyCounts as RekeyCounts
from core.governance.rekey import RekeyReport as RekeyReport
from core.governance.rekey import rekey as rekey
