"""Moved to :mod:`core.governance.budgets.gate`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.budgets.gate import check_budget as check_budget
from core.governance.budgets.gate import meter_model_call as meter_model_call
from core.governance.budgets.gate import meter_tool_call as meter_tool_call
from core.governance.budgets.gate import metered as metered
from core.governance.budgets.gate import record_usage as record_usage
from core.governance.budgets.gate import usage_of as usage_of
