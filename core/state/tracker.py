"""Tracks a session's live state: what changed since the last save, and rollback.

The live dict is a :class:`~core.state.tracked.TrackedState`, which notes the
top-level keys code may have changed; :class:`~core.state.checkpoints.KeyTexts`
holds the JSON text of every key. A checkpoint encodes only the suspect keys
(every key once the whole dict's values were handed out: the full-compare path),
so a turn that touches one key of ten thousand encodes one. Rolling back restores
only the keys changed since the checkpoint, decoded from their texts. Values that are
not JSON surface as a StateValueError naming the key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from core.db import codec
from core.db.values import TRANSIENT_KEYS
from core.state.checkpoints import Checkpoint, KeyTexts
from core.state.tracked import TrackedState, raw_copy


class PublicView(Mapping[str, Any]):
    """A read-only view of the live state without transient keys; reads mark nothing.

    For the runtime's own reads (templates, the state shown in context), which never
    keep or change a value.
    """

    __slots__ = ("_state",)

    def __init__(self, state: dict[str, Any]) -> None:
        self._state = state

    def __getitem__(self, key: str) -> Any:
        if key in TRANSIENT_KEYS:
            raise KeyError(key)
        return dict.__getitem__(self._state, key)

    def __contains__(self, key: object) -> bool:
        return key not in TRANSIENT_KEYS and dict.__contains__(self._state, key)

    def __iter__(self) -> Iterator[str]:
        return (k for k in dict.__iter__(self._state) if k not in TRANSIENT_KEYS)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class StateTracker:
    """The live ``state`` dict plus the JSON text of each key, now and as saved."""

    __slots__ = ("_fresh", "exposed", "keys", "state")

    def __init__(
        self,
        state: dict[str, Any],
        saved_json: Mapping[str, str],
        current_json: dict[str, str] | None = None,
        *,
        size: int | None = None,
    ) -> None:
        """``saved_json``: what the store holds; ``current_json``: the texts of ``state``
        (an owned dict, changed in place; encoded here when not given); ``size``: their
        :attr:`KeyTexts.size` when known."""
        self.state = state if isinstance(state, TrackedState) else TrackedState(state)
        if current_json is None:  # dict.copy reads the values without marking them
            current_json = codec.encode_state(raw_copy(self.state))
        texts = current_json
        self.keys = KeyTexts(texts, None if saved_json is texts else saved_json, size=size)
        #: the whole live state was handed to code that may keep it (its values must
        #: not be reused for a later run)
        self.exposed = False
        # the texts are exact for the live dict until user code runs again
        self._fresh = True

    def checkpoint(self) -> Checkpoint:
        """Encode what may have changed; raises StateValueError if a value is not JSON."""
        state = self.state
        suspects = state.suspects()
        if suspects is None:  # the full-compare path
            for key in [k for k in self.keys.texts if not dict.__contains__(state, k)]:
                self.keys.assign(key, None)
            for key, value in dict.items(state):
                if key not in TRANSIENT_KEYS:
                    self.keys.assign(key, codec.encode_value(key, value))
        else:
            for key in list(suspects):
                if key in TRANSIENT_KEYS:
                    continue
                value = dict.get(state, key, _ABSENT)
                self.keys.assign(key, None if value is _ABSENT else codec.encode_value(key, value))
        state.forget_changes()
        self._fresh = True
        return self.keys.checkpoint()

    def known_checkpoint(self) -> Checkpoint:
        """The last checkpoint when no user code ran since, else a fresh one.

        Only tools, hooks and state views change the live dict, and each of those is
        followed by :meth:`checkpoint` or :meth:`touched`; so between them the texts
        are still exact and nothing need be encoded again.
        """
        if self._fresh and not self.state.changed:
            return self.keys.checkpoint()
        return self.checkpoint()

    def touched(self) -> None:
        """User code is about to run: the texts may be out of date afterwards."""
        self._fresh = False

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Put the live dict back to a checkpoint, in place (tools hold references)."""
        state = self.state
        suspects = state.suspects()
        undone = self.keys.undo_to(checkpoint)
        texts = self.keys.texts
        if suspects is None:
            transient = {k: dict.get(state, k) for k in TRANSIENT_KEYS if k in state}
            dict.clear(state)
            dict.update(state, codec.decode_state(texts))
            dict.update(state, transient)
        else:
            for key in undone.union(suspects):
                if key in TRANSIENT_KEYS:
                    continue
                text = texts.get(key)
                if text is None:
                    dict.pop(state, key, None)
                else:
                    dict.__setitem__(state, key, codec.decode_value(text))
        if suspects is None:
            # every value was replaced: none is the object the run started with
            self.exposed = True
            state.reset_tracking()
        state.forget_changes()
        self._fresh = True

    def delta(self) -> tuple[dict[str, str], set[str]]:
        """(changed texts, removed keys) relative to what is saved."""
        self.known_checkpoint()
        return self.keys.unsaved()

    def mark_saved(self, changed: Mapping[str, str], removed: set[str]) -> None:
        """Record that the store now holds ``changed`` and lacks ``removed``."""
        self.keys.mark_saved(changed, removed)

    def public_view(self) -> Mapping[str, Any]:
        """The state without transient keys, read-only, for the runtime's own reads."""
        return PublicView(self.state)

    def public_state(self) -> dict[str, Any]:
        """The state without transient keys (what a caller may keep), as live values.

        The values are the run's own, so they are not reused by a later run.
        """
        self.exposed = True
        return {k: v for k, v in dict.items(self.state) if k not in TRANSIENT_KEYS}

    def stale_keys(self) -> set[str] | None:
        """Keys whose live value may differ from the value the run started with, or may
        be held by code outside the runtime; None: any key may.

        A value handed out stays suspect for the whole run (also after a rollback
        replaced it), and so does every key whose text changed.
        """
        if self.exposed or self.state.full:
            return None
        return self.state.escaped | self.state.changed.keys() | self.keys.written


_ABSENT: Any = object()
