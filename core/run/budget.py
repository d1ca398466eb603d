"""Moved to :mod:`core.governance.budgets.model`."""

# re-export for the move: imports are switched to the new path after the merge
from __future__ import annotations

from core.governance.budgets.model import SCOPE_KINDS as SCOPE_KINDS
from core.governance.budgets.model import Budget as Budget
from core.governance.budgets.model import Scope as Scope
from core.governance.budgets.model import ScopeKind as ScopeKind
from core.governance.budgets.model import Usage as Usage
from core.governance.budgets.model import budget_of as budget_of
from core.governance.budgets.model import next_reset as next_reset
from core.governance.budgets.model import run_scopes as run_scopes
from core.governance.budgets.model import usage_report as usage_report
from core.governance.budgets.model import utc_day as utc_day
