"""Rules for state values: JSON only, checked key by key so errors name the key."""

from __future__ import annotations

import json
from typing import Any

from core.exceptions import StateValueError as StateValueError  # re-exported

#: visible to tools during a run, never stored
TRANSIENT_KEYS = frozenset({"current_session_id", "current_user_id", "current_run_id"})


# One encoder for every value: json.dumps with options builds a new encoder per call,
# which dominates the cost of a state with thousands of small top-level values.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dump_value(key: str, value: Any) -> str:
    """The JSON text of one top-level value; StateValueError naming the key otherwise."""
    if not isinstance(key, str):
        raise StateValueError(str(key), "top-level keys must be strings")
    try:
        return _ENCODER.encode(value)
    except (TypeError, ValueError) as exc:
        raise StateValueError(key, str(exc)) from None


def dump_state(state: dict[str, Any]) -> dict[str, str]:
    """JSON text per top-level key (transient keys left out)."""
    return {k: dump_value(k, v) for k, v in state.items() if k not in TRANSIENT_KEYS}
