"""Property: the audit diff is a correct RFC 6902 patch, both ways, for any two states."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.db.codec import encode_delta
from core.state.audit import diff_both, diff_texts

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
