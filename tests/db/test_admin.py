"""Admin operations: dump with redaction, restore, delete, export and import."""

from __future__ import annotations

import io
import json

import pytest

from core.db import admin
from core.db.base import BaseDb, SessionMeta
from core.db.in_memory import InMemoryDb

STATE = {
    "tasks": [{"title": "ship", "api_token": "t-123"}],
    "Password": "hunter2",
    "config": {"db": {"DB_SECRET": "s3", "host": "h"}, "note": "keep"},
    "ünï": "☃",
}


async def _fill(db: BaseDb) -> None:
    meta = SessionMeta(kind="agent", owner_id="taskboard", user_id="slack:T1:U1")
    await db.asave("slack:T1:C1:1.0", expected_version=0, changed=STATE, meta=meta)
    await db.asave("slack:T1:C1:1.0", expected_version=1, changed={"n": 1}, meta=meta)
    await db.asave("{odd}:id", expected_version=0, changed={"x": [1, 2.5, None]})


def test_redact_masks_sensitive_keys_at_any_depth_case_insensitively() -> None:
    """Keys matching the patterns are masked in nested dicts and lists; nothing else is."""
    redacted = admin.redact(STATE)
    assert redacted["Password"] == admin.REDACTED
    assert redacted["tasks"] == [{"title": "ship", "api_token": admin.REDACTED}]
    assert redacted["config"] == {"db": {"DB_SECRET": admin.REDACTED, "host": "h"}, "note": "keep"}
    assert STATE["Password"] == "hunter2"  # the input is not mutated


def test_redact_uses_the_given_patterns() -> None:
    """Custom fnmatch patterns replace the defaults."""
    assert admin.redact({"pin": 1, "password": 2}, patterns=["p?n"]) == {
        "pin": admin.REDACTED,
        "password": 2,
    }


async def test_dump_redacts_unless_reveal(store: BaseDb) -> None:
    """A dump shows meta and recent versions, with sensitive values hidden unless revealed."""
    await _fill(store)
    dump = await admin.dump_session(store, "slack:T1:C1:1.0")
    assert dump["state"]["Password"] == admin.REDACTED and dump["redacted"] is True
    assert (dump["version"], dump["owner_id"]) == (2, "taskboard")
    assert [v["version"] for v in dump["recent_versions"]] == [2, 1]
    revealed = await admin.dump_session(store, "slack:T1:C1:1.0", reveal=True)
    assert revealed["state"] == {**STATE, "n": 1}
    history = await admin.session_history(store, "slack:T1:C1:1.0")
    assert history[1]["state"]["Password"] == admin.REDACTED


async def test_missing_session_is_a_clear_error(store: BaseDb) -> None:
    """Dump, restore and delete of an unknown session raise SessionNotFoundError."""
    with pytest.raises(admin.SessionNotFoundError, match="'nope'"):
        await admin.dump_session(store, "nope")
    with pytest.raises(admin.SessionNotFoundError):
        await admin.restore_version(store, "nope", 1)
    with pytest.raises(admin.SessionNotFoundError):
        await admin.delete_session(store, "nope")


async def test_export_wipe_import_gives_back_the_same_sessions(store: BaseDb) -> None:
    """Exporting, deleting everything and importing restores state, version and meta."""
    await _fill(store)
    before = {r.session_id: r for r in await store.alist_sessions()}
    out = io.StringIO()
    assert await admin.export_jsonl(store, out) == 2
    for session_id in before:
        await admin.delete_session(store, session_id)
    assert await store.alist_sessions() == []
    assert await admin.import_jsonl(store, io.StringIO(out.getvalue())) == 2
    after = {r.session_id: r for r in await store.alist_sessions()}
    assert after == before
    # the store goes on from the imported version
    assert await store.asave("{odd}:id", expected_version=1, changed={"y": 1}) == 2


BAD_LINES = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object per line"),
    ('{"version": 1, "state": {}}', "session_id"),
    ('{"session_id": "a", "version": 0, "state": {}}', "version"),
    ('{"session_id": "a", "version": true, "state": {}}', "version"),
    ('{"session_id": "a", "version": 1, "state": []}', "state must be"),
    ('{"session_id": "a", "version": 1, "state": {}, "code": "import os"}', "unknown fields"),
    ('{"session_id": "a", "version": 1, "state": {"x": NaN}}', "'x'"),
    ('{"session_id": "a", "version": 1, "state": {}, "owner_id": 5}', "owner_id"),
    ('{"session_id": "good", "version": 1, "state": {}}', "already appeared on line 1"),
]


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
async def test_bad_import_line_is_named_and_nothing_is_written(
    store: BaseDb, line: str, reason: str
) -> None:
    """A bad line anywhere fails the whole import with its line number; nothing is written."""
    good = json.dumps({"session_id": "good", "version": 3, "state": {"a": 1}})
    with pytest.raises(admin.ImportFileError, match=f"line 3: .*{reason}") as caught:
        await admin.import_jsonl(store, [good + "\n", "\n", line + "\n"])
    assert caught.value.line == 3
    assert "nothing was imported" in str(caught.value)
    assert await store.alist_sessions() == []


async def test_import_over_existing_sessions_needs_replace(store: BaseDb) -> None:
    """Importing a session that exists is refused (nothing written) unless replace=True."""
    await store.asave("s", expected_version=0, changed={"mine": 1})
    line = json.dumps({"session_id": "s", "version": 1, "state": {"theirs": 2}})
    other = json.dumps({"session_id": "t", "version": 1, "state": {}})
    with pytest.raises(admin.ImportFileError, match="already exist"):
        await admin.import_jsonl(store, [other, line])
    assert await store.aload("t") is None
    assert await admin.import_jsonl(store, [other, line], replace=True) == 2
    record = await store.aload("s")
    assert record is not None and record.state == {"theirs": 2}


async def test_import_respects_the_target_store_limits() -> None:
    """A line whose state breaks the store's limits is rejected before anything is written."""
    from core.db.limits import StateLimits

    db = InMemoryDb(limits=StateLimits(max_state_bytes=20))
    line = json.dumps({"session_id": "s", "version": 1, "state": {"a": "x" * 50}})
    with pytest.raises(admin.ImportFileError, match=r"line 1: .*limit is 20"):
        await admin.import_jsonl(db, [line])
    assert await db.aload("s") is None


async def test_restore_and_delete_through_admin(store: BaseDb) -> None:
    """restore_version brings back an old state; delete_session removes the session."""
    await _fill(store)
    assert await admin.restore_version(store, "slack:T1:C1:1.0", 1) == 3
    record = await store.aload("slack:T1:C1:1.0")
    assert record is not None and record.state == STATE
    await admin.delete_session(store, "slack:T1:C1:1.0")
    assert [s["session_id"] for s in await admin.list_sessions(store)] == ["{odd}:id"]
