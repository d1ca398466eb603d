"""The live ``session_state`` dict of a run, which records the top-level keys that may change.

A turn then encodes, compares and saves only those keys instead of the whole state.
:class:`TrackedState` is a real ``dict`` (tools, ``run_context.session_state`` and
``AgentState`` views all hold this one object); it notes:

- ``changed``: keys set, deleted, popped or updated since the last checkpoint;
- ``escaped``: keys whose *mutable* value (list, dict, anything not a str, number,
  bool or None) was handed to code that may keep it, by a read or a write. Such a value
  can change later without the dict seeing it (``state["tasks"].append(...)``), so
  these keys are re-checked at every checkpoint of the run, not only the next one;
- ``full``: the whole dict's values were handed out at once (``items()``,
  ``values()``, ``copy()``, ``|``, pickling): every key is re-checked (the
  full-compare path), for code that reaches nested values in unusual ways.

CPython copies a dict subclass's values without calling its methods in ``dict(x)``,
``{**x}`` and ``f(**x)`` unless the class overrides ``__iter__``; this class does, so
those go through ``keys()`` and ``__getitem__`` and are tracked like reads. What stays
invisible are explicit calls of ``dict``'s own methods on the object
(``dict.__getitem__(state, k)``, ``dict.items(state)``): the runtime uses them to read
without marking; user code that does so must change only what it then sets back.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, SupportsIndex, TypeVar

from core.db import codec

#: values that cannot change in place: reading them hands out nothing to track
_IMMUTABLE_TYPES = frozenset({str, int, float, bool, type(None)})
_MISSING = object()
_V = TypeVar("_V")


class TrackedState(dict[str, Any]):
    """A dict that remembers which top-level keys code may have changed."""

    __slots__ = ("changed", "escaped", "full")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: keys in the order code first changed them (a dict: new keys must reach the
        #: store in the order they were added, whatever the process's hash seed)
        self.changed: dict[str, None] = {}
        self.escaped: set[str] = set()
        self.full = False

    # -- bookkeeping ------------------------------------------------------------------
    def suspects(self) -> Iterable[str] | None:
        """Keys that may differ from the last checkpoint; None means every key."""
        if self.full:
            return None
        if not self.escaped:
            return self.changed
        return [*self.changed, *(k for k in self.escaped if k not in self.changed)]

    def forget_changes(self) -> None:
        """A checkpoint was taken: later changes count from here (escaped keys stay)."""
        self.changed = {}

    def reset_tracking(self) -> None:
        """Every value is fresh (restored from text): nobody holds any of them."""
        self.changed = {}
        self.escaped = set()
        self.full = False

    def peek(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` without marking it (for readers that copy or only look)."""
        return dict.get(self, key, default)

    def plain_copy(self) -> dict[str, Any]:
        """A shallow plain copy that marks nothing (for readers that copy or only look)."""
        return dict(dict.items(self))

    def _hand_out(self, key: str, value: _V) -> _V:
        if type(value) not in _IMMUTABLE_TYPES:
            self.escaped.add(key)
        return value

    # -- reads --------------------------------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self._hand_out(key, dict.__getitem__(self, key))

    def get(self, key: str, default: Any = None) -> Any:
        value = dict.get(self, key, _MISSING)
        return default if value is _MISSING else self._hand_out(key, value)

    def __iter__(self) -> Iterator[str]:
        # overriding __iter__ makes dict(x), {**x} and f(**x) take CPython's generic
        # path through keys() and __getitem__, so their reads are tracked
        return dict.__iter__(self)

    def items(self) -> Any:
        self.full = True
        return dict.items(self)

    def values(self) -> Any:
        self.full = True
        return dict.values(self)

    def copy(self) -> dict[str, Any]:
        self.full = True
        return dict(dict.items(self))

    def __copy__(self) -> dict[str, Any]:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        # a deep copy shares no value with this dict: nothing is handed out
        return {k: copy.deepcopy(v, memo) for k, v in dict.items(self)}

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[object, ...]:
        self.full = True
        return (dict, (dict(dict.items(self)),))

    def __or__(self, other: Any) -> Any:
        self.full = True
        return dict.__or__(dict(dict.items(self)), other)

    def __ror__(self, other: Any) -> Any:
        self.full = True
        return dict.__or__(dict(other), dict(dict.items(self)))

    # -- writes -------------------------------------------------------------------------
    def __setitem__(self, key: str, value: Any) -> None:
        self.changed[key] = None
        self._hand_out(key, value)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self.changed[key] = None

    def pop(self, key: str, *default: Any) -> Any:
        self.changed[key] = None
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Any]:
        key, value = dict.popitem(self)
        self.changed[key] = None
        return key, value

    def setdefault(self, key: str, default: Any = None) -> Any:
        if not dict.__contains__(self, key):
            self.changed[key] = None
        return self._hand_out(key, dict.setdefault(self, key, default))

    def update(self, *args: Any, **kwargs: Any) -> None:
        for source in (*args, kwargs):
            pairs: Iterable[tuple[Any, Any]]
            if isinstance(source, Mapping):
                pairs = [(k, source[k]) for k in source]
            elif hasattr(source, "keys"):
                pairs = [(k, source[k]) for k in source.keys()]  # noqa: SIM118
            else:
                pairs = list(source)
            for key, value in pairs:
                self[key] = value

    def __ior__(self, other: Any) -> TrackedState:  # type: ignore[override]
        self.update(other)
        return self

    def clear(self) -> None:
        self.changed.update(dict.fromkeys(dict.keys(self)))
        dict.clear(self)


def raw_copy(state: Mapping[str, Any]) -> dict[str, Any]:
    """A shallow plain copy that marks nothing, for the runtime's own reads.

    (``dict.copy`` would mark: with ``__iter__`` overridden it reads through
    ``__getitem__``; an items view is read in C without calling any method.)
    """
    if isinstance(state, TrackedState):
        return state.plain_copy()
    return dict(state.items())


def peek(state: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``state.get(key, default)`` without marking the key of a tracked state."""
    if isinstance(state, TrackedState):
        return state.peek(key, default)
    return state.get(key, default)


#: per thread, the seconds (wall, CPU) spent decoding private copies' keys: work a tool
#: call makes on its worker that the same call on the loop, against the live state,
#: would not (core.tools.inline takes it out of what it measures)
_decoding = threading.local()


def decoding_seconds() -> tuple[float, float]:
    """(wall, CPU) seconds this thread has spent decoding keys of private copies."""
    return getattr(_decoding, "wall", 0.0), getattr(_decoding, "cpu", 0.0)


class LazyState(TrackedState):
    """A private copy of a state that decodes each key from its text on first access.

    A sync tool runs on a worker thread against one of these, so a call costs what it
    touches, not the size of the state. Every key of ``texts`` is present; a value is
    decoded (a fresh object) when something reads it. Methods that see the whole dict
    (``==``, ``len``, ``items()``, ``repr`` …) decode every key first. ``texts`` is
    read, never changed.
    """

    __slots__ = ("_resolved", "_texts")

    def __init__(self, texts: Mapping[str, str], loaded: Mapping[str, Any]) -> None:
        super().__init__(loaded)
        self._texts = texts
        #: keys decoded, set or deleted here: their text no longer speaks for them
        self._resolved: set[str] = set(loaded)
        if not loaded and texts:
            # C code that sees an empty dict stops there (json.dumps answers "{}"
            # without calling items()): never look empty while keys are undecoded
            self._load(next(iter(texts)))

    def _load(self, key: str) -> None:
        if key not in self._resolved:
            self._resolved.add(key)
            text = self._texts.get(key)
            if text is not None:
                wall, cpu = time.perf_counter(), time.thread_time()
                dict.__setitem__(self, key, codec.decode_value(text))
                spent_wall, spent_cpu = decoding_seconds()
                _decoding.wall = spent_wall + time.perf_counter() - wall
                _decoding.cpu = spent_cpu + time.thread_time() - cpu

    def _load_all(self) -> None:
        for key in list(self._texts):
            self._load(key)

    def __getitem__(self, key: str) -> Any:
        self._load(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._load(key)
        return super().get(key, default)

    def peek(self, key: str, default: Any = None) -> Any:
        self._load(key)
        return super().peek(key, default)

    def plain_copy(self) -> dict[str, Any]:
        self._load_all()
        return super().plain_copy()

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        return key not in self._resolved and key in self._texts

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        return dict.__iter__(self)

    def keys(self) -> Any:
        self._load_all()
        return dict.keys(self)

    def items(self) -> Any:
        self._load_all()
        return super().items()

    def values(self) -> Any:
        self._load_all()
        return super().values()

    def copy(self) -> dict[str, Any]:
        self._load_all()
        return super().copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        self._load_all()
        return super().__deepcopy__(memo)

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[object, ...]:
        self._load_all()
        return super().__reduce_ex__(protocol)

    def __or__(self, other: Any) -> Any:
        self._load_all()
        return super().__or__(other)

    def __ror__(self, other: Any) -> Any:
        self._load_all()
        return super().__ror__(other)

    def __eq__(self, other: object) -> bool:
        self._load_all()
        if isinstance(other, LazyState):
            other._load_all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._load_all()
        return dict.__repr__(self)

    def __setitem__(self, key: str, value: Any) -> None:
        self._resolved.add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._load(key)
        super().__delitem__(key)

    def pop(self, key: str, *default: Any) -> Any:
        self._load(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        self._load_all()
        return super().popitem()

    def setdefault(self, key: str, default: Any = None) -> Any:
        self._load(key)
        return super().setdefault(key, default)

    def clear(self) -> None:
        unloaded = [k for k in self._texts if k not in self._resolved]
        self.changed.update(dict.fromkeys(unloaded))
        self._resolved.update(unloaded)
        super().clear()

    def touched_values(self) -> tuple[dict[str, Any], set[str]] | None:
        """(values to adopt, keys removed) for the keys code may have changed; None: all."""
        suspects = self.suspects()
        if suspects is None:
            return None
        present: dict[str, Any] = {}
        removed: set[str] = set()
        for key in suspects:
            if dict.__contains__(self, key):
                present[key] = dict.__getitem__(self, key)
            else:
                removed.add(key)
        return present, removed
