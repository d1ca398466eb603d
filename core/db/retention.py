"""Moved to :mod:`core.governance.retention`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.retention import DAY as DAY
from core.governance.retention import DEFAULT_BATCH_SIZE as DEFAULT_BATCH_SIZE
from core.governance.retention import Keyset as Keyset
from core.governance.retention import Retention as Retention
from core.governance.retention import RetentionPolicy as RetentionPolicy
from core.governance.retention import RetentionReport as RetentionReport
from core.governance.retention import RetentionRule as RetentionRule
from core.governance.retention import expire as expire
