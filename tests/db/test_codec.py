"""core/db/codec.py: the one place state becomes JSON text, is measured and split."""

from __future__ import annotations

import json
import math
import random

import pytest

from core.db import codec
from core.exceptions import StateValueError


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, [1, {"x": math.nan}]], ids=repr)
def test_nan_and_infinity_are_refused_naming_the_key(bad: object) -> None:
    """NaN/Infinity anywhere in a value: StateValueError naming the top-level key."""
    with pytest.raises(StateValueError, match="'score'"):
        codec.encode_value("score", bad)


def test_non_string_top_level_keys_are_refused() -> None:
    """A top-level key that is not a string cannot be stored."""
    with pytest.raises(StateValueError, match="keys must be strings"):
        codec.encode_state({1: "one"})  # type: ignore[dict-item]


def test_text_is_compact_utf8_and_transient_keys_are_left_out() -> None:
    """Compact separators, non-ASCII kept as is; current_* keys are never encoded."""
    texts = codec.encode_state({"a": {"b": [1, "ü"]}, "current_user_id": "u"})
    assert texts == {"a": '{"b":[1,"ü"]}'}


def _random_value(rng: random.Random, depth: int = 0) -> object:
    choice = rng.randrange(7 if depth < 3 else 4)
    if choice == 0:
        return rng.randint(-(10**20), 10**20)
    if choice == 1:
        return rng.random() * 10 ** rng.randint(-5, 30)
    if choice == 2:
        return "".join(rng.choice('aü"\\\n✓🎉{}[],: ') for _ in range(rng.randrange(8)))
    if choice == 3:
        return rng.choice([None, True, False])
    if choice == 4:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        "".join(rng.choice('k"ü\\') for _ in range(rng.randrange(4))): _random_value(rng, depth + 1)
        for _ in range(rng.randrange(4))
    }


@pytest.mark.parametrize("seed", range(30))
def test_object_text_split_object_and_sizes_agree_with_json(seed: int) -> None:
    """object_text is json.dumps of the state, split_object its exact inverse, state_bytes
    its UTF-8 length."""
    rng = random.Random(seed)
    state = {
        "".join(rng.choice('ab"ü\\ ') for _ in range(rng.randrange(1, 5))): _random_value(rng)
        for _ in range(rng.randrange(12))
    }
    texts = codec.encode_state(state)
    whole = codec.object_text(texts)
    assert whole == _compact(state)
    assert codec.split_object(whole) == texts
    assert codec.state_bytes(texts) == len(whole.encode())
    assert codec.decode_state(texts) == json.loads(whole)


def test_split_object_accepts_spaced_json_and_slices_values() -> None:
    """Text written by another tool (spaces, newlines) splits into each value's own text."""
    assert codec.split_object(' {\n "a" : [1, 2] ,"b":{"c" :null}\t}\n') == {
        "a": "[1, 2]",
        "b": '{"c" :null}',
    }
    assert codec.split_object("{}") == {}


@pytest.mark.parametrize("bad", ["[1]", '{"a":1', '{"a" 1}', '{"a":}', '{"a":1}x', "", "{a:1}"])
def test_split_object_refuses_what_is_not_one_json_object(bad: str) -> None:
    """Anything but a single JSON object is a ValueError, never a partial result."""
    with pytest.raises(ValueError):
        codec.split_object(bad)
