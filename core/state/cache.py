"""A per-process cache of the last state each session was left in, per store.

A run that finds the stored session unchanged since this process last saved or loaded
it (same version, save id and, for Redis, the same server incarnation: the store
checks, see ``BaseDb.open_run``) reuses the cached texts and the live dict itself
instead of loading and decoding the state, so a turn costs what it touches, not the
size of the state. Correctness comes before the savings:

- an entry is *taken* (removed) by the run that holds the session's lease, so no other
  run of this process can see it meanwhile, and *put back* only by that run, after its
  final save succeeded or when it ended with nothing to save, holding exactly the
  state the store now has; any error, a stale version, a lost lease or a timeout
  leaves the session out of the cache;
- values that code outside the runtime may still hold (a tool kept a reference, the
  whole state was handed out) are not reused: they are decoded again from their text
  when the entry is next taken;
- the live dict is reused by the next run only when nothing but the runtime holds it
  when the run ends (:func:`held_only_by`); a tool, task or view that kept it gets it
  emptied instead, and the values go on in a new dict (one copy, that run only);
- the cache is bounded by entries and by bytes of text, least recently used first out.
"""

from __future__ import annotations

import sys
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.db import codec
from core.db.base import BaseDb
from core.db.records import KnownVersion
from core.run.history import RunRecord
from core.run.pieces import DataPieces
from core.state.tracked import TrackedState

#: sessions kept per store, and their total JSON text in bytes
DEFAULT_MAX_ENTRIES = 1024
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


@dataclass(slots=True)
class CachedSession:
    """A session as this process last saw it in the store."""

    known: KnownVersion
    texts: dict[str, str]
    #: the last run's live dict (transient keys removed); None: decode every key
    state: TrackedState | None
    #: keys whose value must be decoded again from its text before use
    stale: frozenset[str] | set[str]
    data: str
    owner_id: str | None
    #: characters of keys and texts (``KeyTexts.size``); the decoded values are of
    #: the same order
    size: int
    #: the holder of ``texts`` as a frozen snapshot (``KeyTexts.shared``), if any
    shared: weakref.ref[Any] | None = None
    #: what ``data`` was made of (core.run.pieces), when a save of this process made
    #: it: the next run starts from them instead of decoding ``data`` (``size`` counts them)
    pieces: DataPieces[RunRecord] | None = None

    def take_state(self) -> TrackedState:
        """The live dict for the next run, stale keys decoded again; the entry is used up.

        Costs the stale keys, not the state (every key when ``state`` is None).
        """
        state, self.state = self.state, None
        if state is None:
            return TrackedState(codec.decode_state(self.texts))
        for key in self.stale:
            text = self.texts.get(key)
            if text is None:
                dict.pop(state, key, None)
            else:
                dict.__setitem__(state, key, codec.decode_value(text))
        state.reset_tracking()
        return state


def _state_refcount(holder: Any) -> int:
    return sys.getrefcount(holder.state)


class _Probe:
    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = TrackedState()


def _calibrate() -> Callable[[Any], bool] | None:
    """A test "is ``holder.state`` referenced by ``holder`` alone?", or None.

    Measured once on a dict only a probe holds, through the same function, so the
    interpreter's own temporary references cancel out. Without reference counts (not
    CPython) there is no cheap test: every dict counts as held elsewhere.
    """
    if not hasattr(sys, "getrefcount"):
        return None
    alone = _state_refcount(_Probe())
    return lambda holder: _state_refcount(holder) <= alone


_HELD_ONLY_BY = _calibrate()


def held_only_by(holder: Any) -> bool:
    """True when nothing but ``holder.state`` references that object.

    Any other reference — a tool's global, a task's frame, a kept ``RunContext`` or
    ``AgentState`` view, a closure — adds one, so a False answer may be too careful
    (the runtime's own leftovers count) but a True answer is never wrong.
    """
    return _HELD_ONLY_BY is not None and _HELD_ONLY_BY(holder)


class SessionCache:
    """Sessions by id, least recently used first out; bounded in entries and bytes."""

    __slots__ = ("_entries", "_size", "copies", "hits", "max_bytes", "max_entries", "misses")

    def __init__(
        self, max_entries: int = DEFAULT_MAX_ENTRIES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, CachedSession] = OrderedDict()
        self._size = 0
        #: runs that reused a cached session / that found one but had to load
        self.hits = 0
        self.misses = 0
        #: runs whose live dict was held elsewhere at their end, so it was copied
        self.copies = 0

    def take(self, session_id: str) -> CachedSession | None:
        """Remove and return the session's entry (the caller holds its lease)."""
        entry = self._entries.pop(session_id, None)
        if entry is not None:
            self._size -= entry.size
        return entry

    def put(self, session_id: str, entry: CachedSession) -> None:
        """Keep ``entry`` as the session's state, evicting the oldest beyond the bounds."""
        self.drop(session_id)
        if entry.size > self.max_bytes or self.max_entries <= 0:
            return
        self._entries[session_id] = entry
        self._size += entry.size
        while len(self._entries) > self.max_entries or self._size > self.max_bytes:
            _, oldest = self._entries.popitem(last=False)
            self._size -= oldest.size

    def drop(self, session_id: str) -> None:
        """Forget the session."""
        self.take(session_id)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """Bytes of text held."""
        return self._size


_CACHES: weakref.WeakKeyDictionary[BaseDb, SessionCache] = weakref.WeakKeyDictionary()


def cache_of(db: BaseDb) -> SessionCache:
    """The cache of one store object (two store objects never share entries)."""
    cache = _CACHES.get(db)
    if cache is None:
        cache = _CACHES[db] = SessionCache()
    return cache
