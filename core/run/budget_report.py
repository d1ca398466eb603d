"""Moved to :mod:`core.governance.budgets.report`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.budgets.report import ScopeUsage as ScopeUsage
from core.governance.budgets.report import UsageReport as UsageReport
from core.governance.budgets.report import usage_report as usage_report
