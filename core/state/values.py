"""Rules for state values: JSON only, checked key by key so errors name the key.

The encoding itself lives in :mod:`core.state.codec` (the one module that turns state
into JSON text); ``dump_value`` and ``dump_state`` are its ``encode_value`` and
``encode_state`` under their older names.
"""

from __future__ import annotations

from typing import Any

from core.exceptions import StateValueError as StateValueError  # re-exported

#: visible to tools during a run, never stored
TRANSIENT_KEYS = frozenset({"current_session_id", "current_user_id", "current_run_id"})

_ALIASES = {"dump_value": "encode_value", "dump_state": "encode_state"}


def __getattr__(name: str) -> Any:
    # resolved on use: the codec imports TRANSIENT_KEYS from here
    if name in _ALIASES:
        from core.state import codec

        return getattr(codec, _ALIASES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
