"""Dirty tracking of the live state: every access path marks what it may change."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest

from core.db import codec
from core.state import tracker as tracker_module
from core.state.tracked import LazyState, TrackedState, raw_copy
from core.state.tracker import StateTracker


def _state() -> TrackedState:
    return TrackedState({"tasks": [1], "meta": {"n": 1}, "count": 3, "name": "x"})


def _tracker(state: dict[str, Any]) -> StateTracker:
    texts = codec.encode_state(raw_copy(state))
    return StateTracker(state, dict(texts), texts)


def _saved_equals_live(tracker: StateTracker, store: dict[str, str]) -> None:
    """Apply the tracker's delta to ``store`` as a store would, then compare with the oracle."""
    changed, removed = tracker.delta()
    store.update(changed)
    for key in removed:
        store.pop(key, None)
    tracker.mark_saved(changed, removed)
    assert store == codec.encode_state(dict(dict.items(tracker.state)))


def test_reading_a_mutable_value_marks_its_key() -> None:
    """state["tasks"].append(...) is caught: the read marks the key."""
    state = _state()
    state["tasks"].append(2)
    state.get("meta")["n"] = 2
    assert state.escaped == {"tasks", "meta"}
    assert not state.changed


def test_reading_an_immutable_value_marks_nothing() -> None:
    """Strings and numbers cannot change in place, so reading them is free."""
    state = _state()
    assert state["count"] == 3 and state.get("name") == "x" and state.get("nope") is None
    assert state.escaped == set() and not state.full


@pytest.mark.parametrize(
    "copy_out",
    [
        pytest.param(lambda s: dict(s), id="dict(x)"),
        pytest.param(lambda s: {**s}, id="{**x}"),
        pytest.param(lambda s: (lambda **kw: kw)(**s), id="f(**x)"),
        pytest.param(lambda s: {}.update(s) or None, id="dict.update(x)"),
    ],
)
def test_cpython_fast_copies_are_tracked(copy_out: Any) -> None:
    """dict(x), {**x}, f(**x) and d.update(x) go through __getitem__, so they mark keys."""
    state = _state()
    copy_out(state)
    assert {"tasks", "meta"} <= state.escaped or state.full


@pytest.mark.parametrize(
    "whole",
    [
        pytest.param(lambda s: list(s.items()), id="items"),
        pytest.param(lambda s: list(s.values()), id="values"),
        pytest.param(lambda s: s.copy(), id="copy"),
        pytest.param(copy.copy, id="copy.copy"),
        pytest.param(pickle.dumps, id="pickle"),
        pytest.param(lambda s: s | {}, id="or"),
        pytest.param(lambda s: {} | s, id="ror"),
        pytest.param(json.dumps, id="json.dumps"),
    ],
)
def test_whole_dict_access_switches_to_full_compare(whole: Any) -> None:
    """Handing out every value at once makes the next checkpoint compare every key."""
    state = _state()
    whole(state)
    assert state.full
    assert state.suspects() is None


def test_deepcopy_and_equality_hand_out_nothing() -> None:
    """A deep copy shares no value and == compares in place: no key becomes suspect."""
    state = _state()
    clone = copy.deepcopy(state)
    assert clone == state and type(clone) is dict
    assert clone["tasks"] is not dict.__getitem__(state, "tasks")
    assert state.escaped == set() and not state.full


@pytest.mark.parametrize(
    ("change", "keys"),
    [
        (lambda s: s.__setitem__("a", 1), {"a"}),
        (lambda s: s.__delitem__("count"), {"count"}),
        (lambda s: s.pop("count"), {"count"}),
        (lambda s: s.pop("missing", None), {"missing"}),
        (lambda s: s.setdefault("new", 1), {"new"}),
        (lambda s: s.update({"a": 1}, b=2), {"a", "b"}),
        (lambda s: s.update([("a", 1)]), {"a"}),
        (lambda s: s.__ior__({"a": 1}), {"a"}),
        (lambda s: s.clear(), {"tasks", "meta", "count", "name"}),
    ],
)
def test_writes_mark_their_keys(change: Any, keys: set[str]) -> None:
    """Set, delete, pop, setdefault, update, |= and clear mark exactly the keys they touch."""
    state = _state()
    change(state)
    assert set(state.changed) == keys


def test_popitem_marks_its_key() -> None:
    """popitem marks the key it removed."""
    state = _state()
    key, _ = state.popitem()
    assert set(state.changed) == {key}


def test_a_set_mutable_value_stays_suspect() -> None:
    """A value set from outside may be changed later through the caller's reference."""
    state = _state()
    tracker = _tracker(state)
    mine: list[int] = []
    state["mine"] = mine
    tracker.checkpoint()
    mine.append(1)
    tracker.touched()
    store = dict(codec.encode_state(dict(dict.items(state))))
    store["mine"] = "[]"
    changed, _ = tracker.delta()
    assert changed["mine"] == "[1]"


def test_checkpoint_encodes_only_touched_keys() -> None:
    """With nothing handed out, a checkpoint encodes the changed keys only."""
    state = TrackedState({f"k{i}": [i] for i in range(1000)})
    tracker = _tracker(state)
    encoded: list[str] = []
    used = tracker_module.codec  # the codec module the tracker encodes with
    real = used.encode_value

    def counting(key: str, value: Any) -> str:
        encoded.append(key)
        return real(key, value)

    used.encode_value = counting  # type: ignore[assignment]
    try:
        state["k5"].append(0)
        state["new"] = 1
        tracker.checkpoint()
    finally:
        used.encode_value = real  # type: ignore[assignment]
    assert sorted(encoded) == ["k5", "new"]
    assert tracker.delta() == ({"k5": "[5,0]", "new": "1"}, set())


def test_rollback_restores_only_touched_keys_in_place() -> None:
    """A rollback puts changed keys back from their texts and leaves the others' objects."""
    state = _state()
    tracker = _tracker(state)
    untouched = dict.__getitem__(state, "meta")
    point = tracker.checkpoint()
    state["tasks"].append(99)
    del state["count"]
    state["extra"] = {"a": 1}
    tracker.rollback(point)
    assert dict(dict.items(state)) == {
        "tasks": [1],
        "meta": {"n": 1},
        "count": 3,
        "name": "x",
    }
    assert dict.__getitem__(state, "meta") is untouched
    assert tracker.delta() == ({}, set())


def test_rollback_past_a_save_writes_the_undo() -> None:
    """Rolling back past a save makes the next delta put the saved keys back."""
    state = _state()
    tracker = _tracker(state)
    store = dict(codec.encode_state(dict(dict.items(state))))
    before = tracker.checkpoint()
    state["count"] = 4
    _saved_equals_live(tracker, store)
    assert store["count"] == "4"
    tracker.rollback(before)
    _saved_equals_live(tracker, store)
    assert store["count"] == "3"


def test_non_json_value_names_the_key_and_rolls_back() -> None:
    """A value that is not JSON fails the checkpoint naming the key; rollback undoes it."""
    state = _state()
    tracker = _tracker(state)
    point = tracker.checkpoint()
    state["bad"] = {1, 2}
    with pytest.raises(codec.StateValueError, match="'bad'"):
        tracker.checkpoint()
    tracker.rollback(point)
    assert "bad" not in state
    assert tracker.delta() == ({}, set())


def test_transient_keys_are_never_encoded() -> None:
    """current_session_id and friends stay in the live dict and out of every delta."""
    state = _state()
    tracker = _tracker(state)
    state["current_session_id"] = "s"
    assert tracker.delta() == ({}, set())
    tracker.rollback(tracker.checkpoint())
    assert state["current_session_id"] == "s"


def test_lazy_copy_decodes_only_what_is_read() -> None:
    """A sync tool's private copy decodes a key when it is read, and adopts only changes."""
    texts = {f"k{i}": f"[{i}]" for i in range(100)}
    private = LazyState(texts, {"current_session_id": "s"})
    assert "k5" in private and "nope" not in private
    private["k5"].append(0)
    private["new"] = 1
    private.pop("k7")
    assert set(dict.keys(private)) == {"current_session_id", "k5", "new"}  # k7 decoded, gone
    assert private.touched_values() == ({"k5": [5, 0], "new": 1}, {"k7"})


def test_lazy_copy_whole_dict_views_see_every_key() -> None:
    """len, ==, iteration, dict(x), json.dumps and repr see every key, decoded."""
    texts = {"a": "[1]", "b": '{"c":2}'}
    for look in (
        lambda p: len(p) == 2,
        lambda p: p == {"a": [1], "b": {"c": 2}},
        lambda p: sorted(p) == ["a", "b"],
        lambda p: dict(p) == {"a": [1], "b": {"c": 2}},
        lambda p: {**p} == {"a": [1], "b": {"c": 2}},
        lambda p: json.loads(json.dumps(p)) == {"a": [1], "b": {"c": 2}},
        lambda p: "'c': 2" in repr(p),
        lambda p: copy.deepcopy(p) == {"a": [1], "b": {"c": 2}},
    ):
        assert look(LazyState(texts, {}))


def test_lazy_copy_clear_removes_undecoded_keys() -> None:
    """clear() removes keys never decoded, and reports them removed."""
    private = LazyState({"a": "1", "b": "2"}, {})
    private.clear()
    assert len(private) == 0 and "a" not in private
    assert private.touched_values() == ({}, {"a", "b"})


def test_views_read_a_lazy_copy_in_full() -> None:
    """AgentState over a sync tool's lazy copy sees keys not decoded yet."""
    from core.state.view import AgentState

    view = AgentState(LazyState({"a": "[1]", "b": "2", "c": '"x"'}, {}))
    assert view.get("b") == 2 and view.get("c") == "x"
    assert view.get_all() == {"a": [1], "b": 2, "c": "x"}


def test_views_copy_without_marking() -> None:
    """AgentState.get and get_all copy values, so the live state marks nothing."""
    from core.state.view import AgentState

    state = _state()
    AgentState(state).get("tasks")
    AgentState(state).get_all()
    assert state.escaped == set() and not state.full
