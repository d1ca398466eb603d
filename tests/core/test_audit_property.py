"""Property: the audit diff is a correct RFC 6902 patch, both ways, for any two states."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.db.codec import encode_delta
from core.state.audit import diff_both, diff_texts, unescape_token

KEYS = ["a", "b", "c/d", "e~f"]
leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2), st.text(max_size=2)
)
json_value = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
    ),
    max_leaves=12,
)
state = st.dictionaries(st.sampled_from(KEYS), json_value, max_size=4)


@settings(max_examples=400, deadline=None)
@given(state, state)
def test_patch_and_inverse_turn_each_state_into_the_other(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    """diff_both(old, new): the patch makes new from old and the inverse old from new."""
    patch, inverse = diff_both(old, new)
    assert jsonpatch.apply_patch(copy.deepcopy(old), patch) == new
    assert jsonpatch.apply_patch(copy.deepcopy(new), inverse) == old


@settings(max_examples=300, deadline=None)
@given(state, state)
def test_text_diffs_reproduce_the_stored_texts(old: dict[str, Any], new: dict[str, Any]) -> None:
    """diff_texts over stored texts: applying the patch gives the new values, the inverse
    the old ones (as Python compares them: 1 == 1.0 == true; docs/audit.md says so)."""
    old_texts, new_texts = encode_delta(old), encode_delta(new)
    keys = old_texts.keys() | new_texts.keys()
    patch, inverse = diff_texts(
        {k: old_texts.get(k) for k in keys}, {k: new_texts.get(k) for k in keys}
    )
    assert jsonpatch.apply_patch(copy.deepcopy(old), patch) == new
    assert jsonpatch.apply_patch(copy.deepcopy(new), inverse) == old


lists = st.dictionaries(st.sampled_from(KEYS), st.lists(json_value, max_size=4), max_size=3)
grown = st.dictionaries(st.sampled_from(KEYS), st.lists(json_value, min_size=1, max_size=3))


def _texts_of(old: dict[str, Any], new: dict[str, Any], dumps: Any) -> tuple[dict, dict]:
    keys = old.keys() | new.keys()
    return (
        {k: dumps(old[k]) if k in old else None for k in keys},
        {k: dumps(new[k]) if k in new else None for k in keys},
    )


@settings(max_examples=300, deadline=None)
@given(lists, grown, st.sampled_from([", ", ","]), st.booleans())
def test_lists_grown_at_the_end_give_add_ops_from_the_texts(
    old: dict[str, Any], tails: dict[str, list[Any]], comma: str, live: bool
) -> None:
    """A list that only grew at its end: 'add' ops at the end and 'remove' ops back, read
    from the texts (any spacing), exact both ways; never the live objects in the patch."""
    new = copy.deepcopy(old)
    for key, items in tails.items():
        if key in new:
            new[key].extend(copy.deepcopy(items))

    def dumps(value: Any) -> str:
        return json.dumps(value, separators=(comma, ":"))

    old_texts, new_texts = _texts_of(old, new, dumps)
    values = copy.deepcopy(new) if live else None
    patch, inverse = diff_texts(old_texts, new_texts, values)
    assert jsonpatch.apply_patch(copy.deepcopy(old), patch) == new
    assert jsonpatch.apply_patch(copy.deepcopy(new), inverse) == old
    for op in patch:  # the fast path: appends at the end only, nothing diffed
        key, index = op["path"][1:].rsplit("/", 1)
        assert op["op"] == "add" and int(index) >= len(old[unescape_token(key)])
    assert all(op["op"] == "remove" for op in inverse)
    if values is not None:  # the live state changes after the save: the entry must not
        recorded = json.dumps(patch)
        for value in values.values():
            value.append("later")
        assert json.dumps(patch) == recorded


@settings(max_examples=300, deadline=None)
@given(state, state)
def test_whole_keys_added_removed_or_of_another_kind_are_exact(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    """Keys added, removed, scalars, or a value of another JSON kind: one op each way, and
    the value exactly as stored, its type included (1 -> 1.0 is a change)."""
    new = {k: v for k, v in new.items() if not isinstance(v, dict | list) or k not in old}
    old_texts, new_texts = _texts_of(old, new, encode_value_of)
    patch, inverse = diff_texts(old_texts, new_texts)
    after = jsonpatch.apply_patch(copy.deepcopy(old), patch)
    before = jsonpatch.apply_patch(copy.deepcopy(new), inverse)
    assert encode_delta(after) == encode_delta(new)  # texts: types compared too
    assert encode_delta(before) == encode_delta(old)
    changed = [k for k in old.keys() | new.keys() if old_texts[k] != new_texts[k]]
    assert len(patch) == len(inverse) == len(changed)


def encode_value_of(value: Any) -> str:
    return encode_delta({"k": value})["k"]


def test_a_number_changed_only_in_type_is_recorded() -> None:
    """1 -> 1.0 at the top level: a replace whose value is the float (and back the int)."""
    patch, inverse = diff_texts({"n": "1"}, {"n": "1.0"})
    assert patch == [{"op": "replace", "path": "/n", "value": 1.0}]
    assert isinstance(patch[0]["value"], float)
    assert inverse == [{"op": "replace", "path": "/n", "value": 1}]
