"""The deployment's usage budget: read from the settings, given to every chat agent.

``STATEBOT_BUDGET_*`` (tokens and tool calls per session, user and channel per UTC
day) become one :class:`core.governance.budgets.model.Budget`; :func:`apply_budget` hands it to
each agent, team and workflow the bots serve that has none of its own (an owner built
with ``budget=`` keeps it). No variable set: no budget, and nothing is counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from bots.settings import Settings
from core.governance.budgets.model import SCOPE_KINDS, Budget

M = TypeVar("M", bound=Mapping[str, Any])


def settings_budget(settings: Settings) -> Budget | None:
    """The Budget the environment sets, or None when no ``STATEBOT_BUDGET_*`` is set."""
    limits = {
        f"{what}_per_{kind}": getattr(settings, f"statebot_budget_{what}_per_{kind}")
        for what in ("tokens", "tool_calls")
        for kind in SCOPE_KINDS
    }
    if all(limit is None for limit in limits.values()):
        return None
    return Budget(**limits)


def apply_budget(agents: M, settings: Settings) -> M:
    """Give the deployment's budget to every agent in ``agents`` without its own."""
    budget = settings_budget(settings)
    if budget is not None:
        for agent in agents.values():
            if getattr(agent, "budget", None) is None:
                agent.budget = budget
    return agents
