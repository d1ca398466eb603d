"""Property: whatever path code takes into the live state, what is saved equals the live dict.

Random sequences of changes through every access path (item and ``get`` reads kept and
changed later, views, copies, merge patches, ``AgentState``, whole-dict accesses),
with checkpoints, rollbacks and saves in between. The oracle is the full compare:
after each save, the decoded store equals the live dict; after each rollback, the live
dict equals what it was at the checkpoint.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.db import codec
from core.state.merge import apply_merge_patch, deep_merge
from core.state.tracked import TrackedState
from core.state.tracker import StateTracker
from core.state.view import AgentState

KEYS = ["a", "b", "c", "d"]
leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
json_value = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=6,
)
key = st.sampled_from(KEYS)


def _mutate_nested(value: Any, token: Any) -> None:
    """Change a held container in place (what a tool does through a kept reference)."""
    if isinstance(value, list):
        value.append(token)
    elif isinstance(value, dict):
        value["a"] = token


class _Held(list[Any]):
    """References kept by "code": only containers, the values that can change in place."""

    def append(self, value: Any) -> None:
        if isinstance(value, list | dict):
            super().append(value)

    def extend(self, values: Any) -> None:
        for value in values:
            self.append(value)


def _apply(state: TrackedState, held: _Held, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "set":
        state[op[1]] = op[2]
    elif kind == "del":
        state.pop(op[1], None)
    elif kind == "getitem" and op[1] in state:
        held.append(state[op[1]])
    elif kind == "get":
        held.append(state.get(op[1]))
    elif kind == "setdefault":
        held.append(state.setdefault(op[1], op[2]))
    elif kind == "mutate_held" and held:
        _mutate_nested(held[op[1] % len(held)], op[2])
    elif kind == "items":
        held.extend(v for _, v in state.items())
    elif kind == "values":
        held.extend(state.values())
    elif kind == "dict":
        held.extend(dict(state).values())
    elif kind == "splat":
        held.extend({**state}.values())
    elif kind == "copy":
        held.extend(state.copy().values())
    elif kind == "update":
        state.update({op[1]: op[2]})
    elif kind == "ior":
        state |= {op[1]: op[2]}
    elif kind == "clear":
        state.clear()
    elif kind == "popitem" and state:
        state.popitem()
    elif kind == "patch":
        apply_merge_patch(state, {op[1]: op[2]})
    elif kind == "view_set":
        AgentState(state).set(op[1], op[2])
    elif kind == "view_update":
        AgentState(state).update(op[1], {"b": op[2]})
    elif kind == "view_delete":
        AgentState(state).delete(op[1])
    elif kind == "view_clear":
        AgentState(state).clear()
    elif kind == "view_get":
        held.append(AgentState(state).get(op[1]))
    elif kind == "merge_replace":
        merged = deep_merge(state, {op[1]: op[2]})
        state.clear()
        state.update(merged)


op = st.one_of(
    st.tuples(st.just("set"), key, json_value),
    st.tuples(st.just("del"), key),
    st.tuples(st.sampled_from(["getitem", "get", "view_get", "view_delete"]), key),
    st.tuples(
        st.sampled_from(["setdefault", "update", "ior", "patch", "view_set"]), key, json_value
    ),
    st.tuples(st.just("view_update"), key, leaf),
    st.tuples(st.just("mutate_held"), st.integers(0, 10), leaf),
    st.tuples(
        st.sampled_from(
            ["items", "values", "dict", "splat", "copy", "clear", "popitem", "view_clear"]
        )
    ),
    st.tuples(st.sampled_from(["merge_replace"]), key, json_value),
)
step = st.one_of(
    op.map(lambda o: ("op", o)),
    st.just(("checkpoint",)),
    st.just(("rollback",)),
    st.just(("save",)),
)


def _live(state: TrackedState) -> dict[str, Any]:
    return codec.decode_state(codec.encode_state(dict(dict.items(state))))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(key, json_value, max_size=4), st.lists(step, max_size=30))
def test_saved_state_equals_full_compare(initial: dict[str, Any], steps: list[Any]) -> None:
    """After any sequence of changes, the store decoded equals the live dict."""
    state = TrackedState(initial)
    texts = codec.encode_state(initial)
    store = dict(texts)
    tracker = StateTracker(state, dict(texts), texts)
    held = _Held()
    point, at_point = tracker.checkpoint(), _live(state)
    for item in steps:
        if item[0] == "op":
            tracker.touched()
            _apply(state, held, item[1])
        elif item[0] == "checkpoint":
            point, at_point = tracker.checkpoint(), _live(state)
        elif item[0] == "rollback":
            tracker.rollback(point)
            assert _live(state) == at_point
            point, at_point = tracker.checkpoint(), _live(state)
        else:
            changed, removed = tracker.delta()
            store.update(changed)
            for name in removed:
                store.pop(name, None)
            tracker.mark_saved(changed, removed)
            assert codec.decode_state(store) == _live(state)
    tracker.touched()
    changed, removed = tracker.delta()
    store.update(changed)
    for name in removed:
        store.pop(name, None)
    assert codec.decode_state(store) == _live(state)
