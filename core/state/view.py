"""AgentState: the get/set/has/delete/update/clear/get_all view of seed 002.

The same view serves two places: inside a run it wraps the live state (tools receive
it as ``agent_state``); on ``agent.state`` it reads and writes the agent's stored
session, each change persisted like any other.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from core.db.values import TRANSIENT_KEYS
from core.state.tracked import peek, raw_copy


class StateBackend(Protocol):
    """Where a view reads from and how it applies a change."""

    def read(self) -> Mapping[str, Any]: ...

    def mutate(self, change: Callable[[dict[str, Any]], None]) -> None: ...


class LiveState:
    """A backend over a dict that is already live (inside a run)."""

    __slots__ = ("_state",)

    def __init__(self, state: dict[str, Any]) -> None:
        self._state = state

    def read(self) -> Mapping[str, Any]:
        return self._state

    def mutate(self, change: Callable[[dict[str, Any]], None]) -> None:
        change(self._state)


_MISSING = object()


class AgentState:
    """Key/value operations on a session state."""

    __slots__ = ("_backend",)

    def __init__(self, backend: StateBackend | dict[str, Any]) -> None:
        self._backend = LiveState(backend) if isinstance(backend, dict) else backend

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (a copy), or ``default``."""
        # a copy hands out nothing of the live state: read it without marking the key
        value = peek(self._backend.read(), key, _MISSING)
        return default if value is _MISSING else copy.deepcopy(value)

    def set(self, key: str, value: Any) -> None:
        """Set ``key`` to ``value``."""
        self._backend.mutate(lambda s: s.__setitem__(key, copy.deepcopy(value)))

    def has(self, key: str) -> bool:
        """Whether ``key`` is present."""
        return key in self._backend.read()

    def delete(self, key: str) -> None:
        """Remove ``key`` (no error when it is absent)."""
        self._backend.mutate(lambda s: s.pop(key, None))

    def update(self, key: str, value: Mapping[str, Any]) -> None:
        """Merge ``value`` into the dict stored at ``key`` (creating it)."""

        def change(state: dict[str, Any]) -> None:
            current = state.get(key)
            merged = dict(current) if isinstance(current, dict) else {}
            merged.update(copy.deepcopy(dict(value)))
            state[key] = merged

        self._backend.mutate(change)

    def clear(self) -> None:
        """Remove every key."""

        def change(state: dict[str, Any]) -> None:
            for key in [k for k in state if k not in TRANSIENT_KEYS]:
                del state[key]

        self._backend.mutate(change)

    def get_all(self) -> dict[str, Any]:
        """A copy of the whole state."""
        return {
            k: copy.deepcopy(v)
            for k, v in raw_copy(self._backend.read()).items()
            if k not in TRANSIENT_KEYS
        }
