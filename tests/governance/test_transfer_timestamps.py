"""Imported timestamps: a line without them takes the import time (never 1970, which the
next retention pass would delete); a future or non-numeric one refuses the line."""

from __future__ import annotations

import json
import time

import pytest

from core.db.base import BaseDb
from core.exceptions import ImportFileError
from core.governance.retention import Retention, RetentionPolicy, RetentionRule
from core.governance.transfer import import_jsonl

_BASE = {"session_id": "slack:T1:D1", "version": 2, "state": {"a": 1}}
_NO_STAMPS = [
    _BASE,
    {**_BASE, "created_at": None, "updated_at": None},
    {**_BASE, "created_at": 1_700_000_000.0, "updated_at": None},
    {**_BASE, "created_at": 0, "updated_at": 0.0},  # a record's "unknown" (older imports)
]


def _policy() -> RetentionPolicy:
    return RetentionPolicy((RetentionRule.prefix("all", "", 30),))


@pytest.mark.parametrize("line", _NO_STAMPS)
async def test_missing_timestamps_take_the_import_time_and_survive_retention(
    store: BaseDb, line: dict[str, object]
) -> None:
    """Missing, null or 0 created_at/updated_at are the import time; retention keeps it."""
    before = time.time()
    assert await import_jsonl(store, [json.dumps(line)]) == 1
    record = await store.aload("slack:T1:D1")
    assert record is not None and record.updated_at >= before
    assert record.created_at <= record.updated_at
    if not line.get("created_at"):
        assert record.created_at >= before
    report = await Retention(store, _policy()).sweep()
    assert report.sessions_expired == [] and await store.aload("slack:T1:D1") is not None


@pytest.mark.parametrize(
    ("stamps", "reason"),
    [
        ({"updated_at": time.time() + 86_400}, "updated_at .*in the future"),
        ({"created_at": time.time() + 86_400}, "created_at .*in the future"),
        ({"updated_at": "2024-01-01"}, "updated_at must be"),
        ({"created_at": True}, "created_at must be"),
    ],
)
async def test_a_future_or_non_numeric_timestamp_refuses_the_line(
    store: BaseDb, stamps: dict[str, object], reason: str
) -> None:
    """Such a line fails the import on one line, naming the field; nothing is written."""
    good = json.dumps({**_BASE, "session_id": "good"})
    with pytest.raises(ImportFileError, match=f"line 2: {reason}") as caught:
        await import_jsonl(store, [good, json.dumps({**_BASE, **stamps})])
    assert "\n" not in str(caught.value)
    assert await store.alist_sessions() == []
