"""How many earlier runs an agent, team or step sends its model (Agno's history options)."""

from __future__ import annotations

__all__ = ["DEFAULT_HISTORY_RUNS", "check_history_runs", "history_runs"]

#: earlier runs sent with ``add_history_to_context`` when ``num_history_runs`` is None
#: (Agno's default)
DEFAULT_HISTORY_RUNS = 3


def check_history_runs(value: int | None) -> int | None:
    """``num_history_runs``: None (Agno's default) or a count of at least 0."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"num_history_runs must be a whole number >= 0 or None, not {value!r}")
    return value


def history_runs(add_history_to_context: bool, num_history_runs: int | None) -> int | None:
    """How many earlier runs a model call is sent (None: no history)."""
    if not add_history_to_context:
        return None
    return DEFAULT_HISTORY_RUNS if num_history_runs is None else num_history_runs
