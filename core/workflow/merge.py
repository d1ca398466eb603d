"""Merging the states of Parallel branches back into the run's state.

Every branch starts from a deep copy of the state as it was when the Parallel began
(the *base*). When all branches have finished, their states are merged key by key
against the base, a three-way merge:

- a key only one branch changed (set, replaced or deleted) takes that branch's result;
- two branches that made the same change agree;
- when both sides hold dicts (or a new key is a dict on both sides) the merge recurses,
  so branches may change different keys of one nested dict;
- anything else — two branches changing the same leaf to different values, or one
  deleting what another changed; lists and scalars are leaves — raises
  :class:`ParallelStateConflictError` naming the path and the branches. Nothing from
  the Parallel is applied then: the state stays as it was before the Parallel.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from core.exceptions import ParallelStateConflictError as ParallelStateConflictError

_MISSING = object()


def _lookup(state: Mapping[str, object], path: Sequence[str]) -> object:
    node: object = state
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _merge(
    base: Mapping[str, Any],
    ours: Mapping[str, Any],
    theirs: Mapping[str, Any],
    path: list[str],
    on_conflict: Callable[[list[str]], NoReturn],
) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for key in dict.fromkeys([*ours, *theirs, *base]):
        b = base.get(key, _MISSING)
        o = ours.get(key, _MISSING)
        t = theirs.get(key, _MISSING)
        if t == b or o == t:
            value = o
        elif o == b:
            value = t
        elif isinstance(o, dict) and isinstance(t, dict) and (b is _MISSING or isinstance(b, dict)):
            value = _merge(b if isinstance(b, dict) else {}, o, t, [*path, key], on_conflict)
        else:
            on_conflict([*path, key])
        if value is not _MISSING:
            merged[key] = value
    return merged


def merge_branch_states(
    base: Mapping[str, Any], branches: Sequence[tuple[str, Mapping[str, Any]]]
) -> dict[str, Any]:
    """The merged state of all branches, or ParallelStateConflictError."""
    merged: dict[str, Any] = copy.deepcopy(dict(base))
    for index, (name, state) in enumerate(branches):

        def conflict(path: list[str], index: int = index, name: str = name) -> NoReturn:
            theirs = _lookup(branches[index][1], path)
            base_value = _lookup(base, path)
            earlier = next(
                (
                    other
                    for other, other_state in branches[:index]
                    if _lookup(other_state, path) not in (base_value, theirs)
                ),
                "an earlier branch",
            )
            raise ParallelStateConflictError(path, (earlier, name))

        merged = _merge(base, merged, copy.deepcopy(dict(state)), [], conflict)
    return merged
