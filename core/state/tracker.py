"""Tracks a session's live state: what changed since the last save, and rollback.

The tracker keeps the JSON text of every top-level key as last persisted. A
checkpoint is the same kind of map, so rolling a failed tool call back and working
out the delta to save both come from comparing JSON texts; non-JSON values surface
as a StateValueError naming the key.
"""

from __future__ import annotations

import json
from typing import Any

from core.state.values import TRANSIENT_KEYS, dump_state


class StateTracker:
    """The live ``state`` dict plus the JSON of what the store holds."""

    __slots__ = ("_latest", "_saved", "state")

    def __init__(
        self,
        state: dict[str, Any],
        saved_json: dict[str, str],
        current_json: dict[str, str] | None = None,
    ) -> None:
        self.state = state
        self._saved = saved_json
        # JSON of the live state as last computed; valid until user code runs again
        self._latest = current_json

    def checkpoint(self) -> dict[str, str]:
        """JSON per key now; raises StateValueError if a value is not JSON."""
        self._latest = dump_state(self.state)
        return self._latest

    def known_checkpoint(self) -> dict[str, str]:
        """The last checkpoint when no user code ran since, else a fresh one.

        Only tools, hooks and state views change the live dict, and each of those is
        followed by :meth:`checkpoint` or :meth:`touched`; so between them the last
        checkpoint is still exact and the state need not be serialized again.
        """
        return self._latest if self._latest is not None else self.checkpoint()

    def touched(self) -> None:
        """Forget the last checkpoint: user code may have changed the state."""
        self._latest = None

    def rollback(self, checkpoint: dict[str, str]) -> None:
        """Put the live dict back to a checkpoint, in place (tools hold references)."""
        transient = {k: v for k, v in self.state.items() if k in TRANSIENT_KEYS}
        self.state.clear()
        self.state.update({k: json.loads(v) for k, v in checkpoint.items()})
        self.state.update(transient)
        self._latest = checkpoint

    def delta(self, current: dict[str, str] | None = None) -> tuple[dict[str, str], set[str]]:
        """(JSON text of changed keys, removed keys) relative to what is saved."""
        current = self.known_checkpoint() if current is None else current
        changed = {k: text for k, text in current.items() if self._saved.get(k) != text}
        removed = set(self._saved) - set(current)
        return changed, removed

    def mark_saved(self, current: dict[str, str]) -> None:
        """Record that ``current`` is now what the store holds."""
        self._saved = current

    def public_state(self) -> dict[str, Any]:
        """The state without transient keys (what a caller may keep)."""
        return {k: v for k, v in self.state.items() if k not in TRANSIENT_KEYS}
