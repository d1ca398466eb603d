"""State limits: one definition of size, enforced the same way by every store."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits, dump_delta, state_bytes
from core.db.sqlite import SqliteDb
from core.exceptions import StateLimitError

LIMITS = StateLimits(max_state_bytes=60, max_key_length=8)


@pytest.mark.parametrize(
    "state",
    [{}, {"a": 1}, {"ü": "☃", "b": [1, {"c": None}]}, {"q": '"\\\n', "n": 1.5e300}],
    ids=["empty", "one", "unicode", "escapes"],
)
def test_state_bytes_equals_compact_json_size(state: dict[str, object]) -> None:
    """state_bytes counts exactly the UTF-8 bytes of the compact JSON of the state."""
    compact = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
    assert state_bytes(dump_delta(state)) == len(compact.encode())


def test_size_error_names_the_largest_keys() -> None:
    """The size error names the biggest keys and the limit."""
    texts = dump_delta({"small": 1, "huge": "x" * 100})
    with pytest.raises(StateLimitError, match=r"'huge' \(102 bytes\).*") as caught:
        LIMITS.check_size("s", texts)
    assert "the limit is 60" in str(caught.value)


def _memory(tmp_path: Path) -> BaseDb:
    return InMemoryDb(limits=LIMITS)


def _sqlite(tmp_path: Path) -> BaseDb:
    return SqliteDb(db_file=tmp_path / "limits.db", limits=LIMITS)


@pytest.mark.parametrize("make", [_memory, _sqlite], ids=["memory", "sqlite"])
async def test_state_exactly_at_limit_is_accepted_one_byte_more_is_not(
    make: Callable[[Path], BaseDb], tmp_path: Path
) -> None:
    """A state of exactly max_state_bytes saves; one more byte fails and writes nothing."""
    db = make(tmp_path)
    try:
        # {"a":"…"} is 8 bytes plus the string, so 52 x's make exactly 60 bytes
        await db.asave("s", expected_version=0, changed=texts({"a": "x" * 52}))
        with pytest.raises(StateLimitError):
            await db.asave("s", expected_version=1, changed=texts({"a": "x" * 53}))
        with pytest.raises(StateLimitError):
            await db.asave("s", expected_version=1, changed=texts({"b": 1}))
        # removing a key frees its bytes again
        assert await db.asave("s", expected_version=1, changed=texts({"b": 1}), removed={"a"}) == 2
        record = await db.aload("s")
        assert record is not None and record.state == {"b": 1}
    finally:
        await db.aclose()


@pytest.mark.parametrize("make", [_memory, _sqlite], ids=["memory", "sqlite"])
async def test_key_length_limit_is_inclusive(
    make: Callable[[Path], BaseDb], tmp_path: Path
) -> None:
    """A key of max_key_length characters is fine; one more character is refused."""
    db = make(tmp_path)
    try:
        await db.asave("s", expected_version=0, changed=texts({"k" * 8: 1}))
        with pytest.raises(StateLimitError, match="9 characters long; the limit is 8"):
            await db.asave("s", expected_version=1, changed=texts({"k" * 9: 1}))
    finally:
        await db.aclose()


@pytest.mark.parametrize(
    "key", ["tasks", 'quo"te', "back\\slash", "tab\there", "ünï", "😀", "c\x01"]
)
@pytest.mark.parametrize("text", ["1", '"plain"', '"ünï😀"'])
def test_entry_bytes_matches_the_real_json_size(key: str, text: str) -> None:
    """The ASCII fast path and the escaping path both count exactly what json.dumps writes."""
    import json

    from core.db.limits import entry_bytes

    expected = len(json.dumps(key, ensure_ascii=False).encode()) + 1 + len(text.encode())
    assert entry_bytes(key, text) == expected
