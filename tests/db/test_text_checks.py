"""The nesting check counts the levels of the JSON itself, whatever its strings hold."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.db.text_checks import MAX_DEPTH, text_problem

_STRINGS = st.text(alphabet=st.sampled_from('[]{}"\\ aé☃\U0001f600\n'), max_size=12)
_LEAVES = st.one_of(st.none(), st.integers(), _STRINGS)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _wrapped(leaf: Any, depth: int, siblings: list[Any]) -> Any:
    value = leaf
    for level in range(depth):
        value = [*siblings, value] if level % 2 else {"k": value, "s": siblings}
    return value


@settings(max_examples=80, deadline=None)
@given(
    leaf=_LEAVES,
    depth=st.sampled_from([MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 20]),
    siblings=st.lists(_LEAVES, max_size=3),
    wide=st.integers(0, 400),
)
def test_only_values_nested_too_deep_are_refused(
    leaf: Any, depth: int, siblings: list[Any], wide: int
) -> None:
    """Brackets inside strings, non-ASCII text and many flat objects change nothing."""
    value = [_wrapped(leaf, depth, siblings), [{"a": "[{" * 3} for _ in range(wide)]]
    text = json.dumps(value, ensure_ascii=False)
    problem = text_problem(text)
    too_deep = _depth(value) > MAX_DEPTH
    assert (problem is not None and "nested more than" in problem) is too_deep


def test_a_long_flat_list_of_objects_is_not_too_deep() -> None:
    """20,000 brackets, two levels: fine."""
    tasks = [{"id": i, "title": f"task {i} ]]]]", "status": "open"} for i in range(10_000)]
    assert text_problem(json.dumps(tasks)) is None
