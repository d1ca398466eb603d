"""Agno's ``agno.utils.merge_dict`` path: the two dict-merging helpers Agno code calls.

These work on plain dicts the caller owns. The runtime itself does not use them: a
``Parallel`` merges its branches with :mod:`core.workflow.merge`, which refuses two
branches changing one value instead of letting the last one win.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["merge_dictionaries", "merge_parallel_session_states"]


def merge_dictionaries(a: dict[str, Any], b: Mapping[str, Any]) -> None:
    """Merge ``b`` into ``a`` in place: dicts recurse, anything else from ``b`` replaces."""
    for key, value in b.items():
        current = a.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merge_dictionaries(current, value)
        else:
            a[key] = value


def merge_parallel_session_states(
    original_state: dict[str, Any], modified_states: Iterable[Mapping[str, Any] | None]
) -> None:
    """Apply to ``original_state`` only the top-level keys each modified copy changed.

    A key a copy left equal to the original is not written back, so one branch's copy
    does not undo another's change; when two copies change one key, the later wins.
    """
    if not original_state:
        return
    changes: dict[str, Any] = {}
    for modified in modified_states:
        for key, value in (modified or {}).items():
            if key not in original_state or original_state[key] != value:
                changes[key] = value
    original_state.update(changes)
