"""Rules for state values: JSON only, checked key by key so errors name the key.

The encoding itself lives in :mod:`core.db.codec` (the one module that turns state
into JSON text); this module holds the keys a run adds and never stores.
"""

from __future__ import annotations

from core.exceptions import StateValueError as StateValueError  # re-exported

#: visible to tools during a run, never stored
TRANSIENT_KEYS = frozenset({"current_session_id", "current_user_id", "current_run_id"})
