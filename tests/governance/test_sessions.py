"""Admin operations: dump with redaction, restore, delete, export and import."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.records import SessionMeta, SessionRecord
from core.exceptions import (
    ImportFileError,
    ImportWriteError,
    SessionNotFoundError,
    StoreUnavailableError,
)
from core.governance.sessions import (
    delete_session,
    dump_session,
    list_sessions,
    reset_session,
    restore_version,
    session_history,
)
from core.governance.transfer import export_jsonl, import_jsonl
from core.redaction import REDACTED, redact

STATE = {
    "tasks": [{"title": "ship", "api_token": "t-123"}],
    "Password": "hunter2",
    "config": {"db": {"DB_SECRET": "s3", "host": "h"}, "note": "keep"},
    "ünï": "☃",
}


async def _fill(db: BaseDb) -> None:
    meta = SessionMeta(kind="agent", owner_id="taskboard", user_id="slack:T1:U1")
    await db.asave("slack:T1:C1:1.0", expected_version=0, changed=texts(STATE), meta=meta)
    await db.asave("slack:T1:C1:1.0", expected_version=1, changed=texts({"n": 1}), meta=meta)
    await db.asave("{odd}:id", expected_version=0, changed=texts({"x": [1, 2.5, None]}))


def test_redact_masks_sensitive_keys_at_any_depth_case_insensitively() -> None:
    """Keys matching the patterns are masked in nested dicts and lists; nothing else is."""
    redacted = redact(STATE)
    assert redacted["Password"] == REDACTED
    assert redacted["tasks"] == [{"title": "ship", "api_token": REDACTED}]
    assert redacted["config"] == {"db": {"DB_SECRET": REDACTED, "host": "h"}, "note": "keep"}
    assert STATE["Password"] == "hunter2"  # the input is not mutated


def test_redact_takes_extra_patterns_on_top_of_the_shared_list() -> None:
    """Extra fnmatch patterns add to the shared credential list, never replace it."""
    assert redact({"pin": 1, "password": 2}, extra=["p?n"]) == {
        "pin": REDACTED,
        "password": REDACTED,
    }


@pytest.mark.parametrize(
    "key",
    ["authorization", "api-key", "private_key", "pwd", "passphrase", "jwt", "aws_access_key_id"],
)
async def test_dump_hides_every_common_credential_name(key: str) -> None:
    """Dumps use the shared list: header, dashed, short and cloud credential names hidden."""
    db = InMemoryDb()
    await db.asave("s", expected_version=0, changed=texts({key: "leak-me", "title": "ok"}))
    dump = await dump_session(db, "s")
    assert dump["state"] == {key: REDACTED, "title": "ok"}


async def test_dump_redacts_unless_reveal(store: BaseDb) -> None:
    """A dump shows meta and recent versions, with sensitive values hidden unless revealed."""
    await _fill(store)
    dump = await dump_session(store, "slack:T1:C1:1.0")
    assert dump["state"]["Password"] == REDACTED and dump["redacted"] is True
    assert (dump["version"], dump["owner_id"]) == (2, "taskboard")
    assert [v["version"] for v in dump["recent_versions"]] == [2, 1]
    revealed = await dump_session(store, "slack:T1:C1:1.0", reveal=True)
    assert revealed["state"] == {**STATE, "n": 1}
    history = await session_history(store, "slack:T1:C1:1.0")
    assert history[1]["state"]["Password"] == REDACTED


async def test_missing_session_is_a_clear_error(store: BaseDb) -> None:
    """Dump, restore and delete of an unknown session raise SessionNotFoundError."""
    with pytest.raises(SessionNotFoundError, match="'nope'"):
        await dump_session(store, "nope")
    with pytest.raises(SessionNotFoundError):
        await restore_version(store, "nope", 1)
    with pytest.raises(SessionNotFoundError):
        await delete_session(store, "nope")


async def test_export_wipe_import_gives_back_the_same_sessions(store: BaseDb) -> None:
    """Exporting, deleting everything and importing restores state, version and meta."""
    await _fill(store)
    before = {r.session_id: r for r in await store.alist_sessions()}
    out = io.StringIO()
    assert (await export_jsonl(store, out)).count == 2
    for session_id in before:
        await delete_session(store, session_id)
    assert await store.alist_sessions() == []
    assert await import_jsonl(store, io.StringIO(out.getvalue())) == 2
    after = {r.session_id: r for r in await store.alist_sessions()}
    assert after == before
    # the store goes on from the imported version
    assert await store.asave("{odd}:id", expected_version=1, changed=texts({"y": 1})) == 2


BAD_LINES = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object per line"),
    ('{"version": 1, "state": {}}', "session_id"),
    ('{"session_id": "a", "version": 0, "state": {}}', "version"),
    ('{"session_id": "a", "version": true, "state": {}}', "version"),
    ('{"session_id": "a", "version": 1, "state": []}', "state must be"),
    ('{"session_id": "a", "version": 1, "state": {}, "code": "import os"}', "unknown fields"),
    ('{"session_id": "a", "version": 1, "state": {"x": NaN}}', "NaN is not a JSON number"),
    ('{"session_id": "a", "version": 1, "state": {}, "owner_id": 5}', "owner_id"),
    ('{"session_id": "good", "version": 1, "state": {}}', "already appeared on line 1"),
    (json.dumps({"session_id": "a", "version": 2**70, "state": {}}), "64-bit"),
    (json.dumps({"session_id": "a", "version": 2**63, "state": {}}), "64-bit"),
    ('{"session_id": "a", "version": 1, "state": {}, "created_at": NaN}', "NaN"),
    ('{"session_id": "a", "version": 1, "state": {}, "updated_at": Infinity}', "Infinity"),
    ('{"session_id": "a", "version": 1, "state": {}, "updated_at": 1e400}', "finite"),
    ('{"session_id": "a", "version": 1, "state": {}, "created_at": -5}', "created_at"),
    ('{"session_id": "a\\u0000b", "version": 1, "state": {}}', "NUL"),
    ('{"session_id": "a", "version": 1, "state": {}, "user_id": "u\\u0000"}', "NUL"),
    (json.dumps({"session_id": "x" * 3000, "version": 1, "state": {}}), "bytes long"),
    ('{"session_id": "a", "version": 1, "state": {}, "kind": ""}', "kind"),
]


@pytest.mark.parametrize(("line", "reason"), BAD_LINES)
async def test_bad_import_line_is_named_and_nothing_is_written(
    store: BaseDb, line: str, reason: str
) -> None:
    """A bad line anywhere fails the whole import with its line number; nothing is written."""
    good = json.dumps({"session_id": "good", "version": 3, "state": {"a": 1}})
    with pytest.raises(ImportFileError, match=f"line 3: .*{reason}") as caught:
        await import_jsonl(store, [good + "\n", "\n", line + "\n"])
    assert caught.value.line == 3
    assert "nothing was imported" in str(caught.value)
    assert await store.alist_sessions() == []


async def test_import_over_existing_sessions_needs_replace(store: BaseDb) -> None:
    """Importing a session that exists is refused (nothing written) unless replace=True."""
    await store.asave("s", expected_version=0, changed=texts({"mine": 1}))
    line = json.dumps({"session_id": "s", "version": 1, "state": {"theirs": 2}})
    other = json.dumps({"session_id": "t", "version": 1, "state": {}})
    with pytest.raises(ImportFileError, match="already exist"):
        await import_jsonl(store, [other, line])
    assert await store.aload("t") is None
    assert await import_jsonl(store, [other, line], replace=True) == 2
    record = await store.aload("s")
    assert record is not None and record.state == {"theirs": 2}


async def test_replace_saves_over_the_session_and_keeps_its_history(store: BaseDb) -> None:
    """--replace never deletes: the file's state becomes the next version, history kept."""
    await store.asave("s", expected_version=0, changed=texts({"mine": 1, "old": True}))
    line = json.dumps({"session_id": "s", "version": 1, "state": {"theirs": 2}})
    assert await import_jsonl(store, [line], replace=True) == 1
    record = await store.aload("s")
    assert record is not None and (record.state, record.version) == ({"theirs": 2}, 2)
    assert [e.version for e in await store.ahistory("s")] == [2, 1]


@pytest.mark.parametrize(
    "bad",
    [
        json.dumps({"session_id": "s", "version": 2**70, "state": {"theirs": 2}}),
        '{"session_id": "s", "version": 2, "state": {}, "updated_at": NaN}',
        '{"session_id": "t", "version": 1, "state": {}, "created_at": Infinity}',
    ],
)
async def test_replace_with_a_bad_record_deletes_nothing(store: BaseDb, bad: str) -> None:
    """A file that fails validation leaves every existing session as it was."""
    await store.asave("s", expected_version=0, changed=texts({"mine": 1}))
    good = json.dumps({"session_id": "s", "version": 9, "state": {"theirs": 2}})
    lines = [bad] if bad.startswith('{"session_id": "s"') else [good, bad]
    with pytest.raises(ImportFileError, match="nothing was imported"):
        await import_jsonl(store, lines, replace=True)
    record = await store.aload("s")
    assert record is not None and (record.state, record.version) == ({"mine": 1}, 1)
    assert await store.aload("t") is None


class _FailingOn(InMemoryDb):
    """An in-memory store whose snapshot writes fail for one session id."""

    def __init__(self, bad: str) -> None:
        super().__init__()
        self.bad = bad

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        if record.session_id == self.bad:
            raise StoreUnavailableError("database unavailable")
        return await super().aupsert_snapshot(record)


async def test_a_write_failing_midway_reports_what_was_and_was_not_written() -> None:
    """A store failure mid-import names the sessions written and those not written."""
    db = _FailingOn("b")
    lines = [json.dumps({"session_id": s, "version": 1, "state": {"n": s}}) for s in "abc"]
    with pytest.raises(ImportWriteError) as caught:
        await import_jsonl(db, lines)
    assert caught.value.written == ["a"] and caught.value.not_written == ["b", "c"]
    message = str(caught.value)
    assert "session 'b'" in message and "database unavailable" in message
    assert "written (1): 'a'" in message and "not written (2): 'b', 'c'" in message
    assert (await db.aload("a")) is not None and (await db.aload("c")) is None


async def test_export_survives_non_finite_stored_timestamps() -> None:
    """A stored inf/NaN timestamp exports as null (reported), and the file imports again."""
    db = InMemoryDb()
    odd = SessionRecord.from_state(
        "s", {"a": 1}, 3, created_at=float("nan"), updated_at=float("inf")
    )
    await db.aupsert_snapshot(odd)
    out = io.StringIO()
    result = await export_jsonl(db, out)
    assert (result.count, result.repaired, result.skipped) == (1, ["s"], {})
    line = json.loads(out.getvalue())
    assert (line["created_at"], line["updated_at"], line["state"]) == (None, None, {"a": 1})
    target = InMemoryDb()
    assert await import_jsonl(target, [out.getvalue()]) == 1


async def _blocked_while_leased(db: BaseDb, session_id: str, operation: object) -> None:
    async with db.session_lock(session_id):
        task = asyncio.ensure_future(operation)  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        assert not task.done(), "the admin operation did not wait for the session lease"
    await task


async def test_admin_writes_wait_for_the_session_lease(store: BaseDb) -> None:
    """Restore, replace-import and delete run under the session lease, never beside a run."""
    await store.asave("s", expected_version=0, changed=texts({"a": 1}))
    await store.asave("s", expected_version=1, changed=texts({"a": 2}))
    await _blocked_while_leased(store, "s", restore_version(store, "s", 1))
    line = json.dumps({"session_id": "s", "version": 1, "state": {"b": 1}})
    await _blocked_while_leased(store, "s", import_jsonl(store, [line], replace=True))
    await _blocked_while_leased(store, "s", reset_session(store, "s"))
    await _blocked_while_leased(store, "s", delete_session(store, "s"))
    assert await store.aload("s") is None


async def test_reset_empties_the_state_and_keeps_the_history(store: BaseDb) -> None:
    """reset_session saves {} as the next version, by the actor; restoring undoes it."""
    data = '{"name":"standup","runs":[]}'
    await store.asave("s", expected_version=0, changed=texts({"a": 1, "b": [2]}), data=data)
    assert await reset_session(store, "s", actor="slack:T1:U9") == 2
    record = await store.aload("s")
    assert record is not None and record.state == {} and record.user_id == "slack:T1:U9"
    kept = json.loads(record.data)  # the run history stays; the reset is audited
    assert (kept["name"], kept["runs"]) == ("standup", [])
    (reset,) = [json.loads(line) for line in kept["audit"].split("\n")]
    assert (reset["kind"], reset["user_id"]) == ("reset", "slack:T1:U9")
    assert await restore_version(store, "s", 1) == 3
    restored = await store.aload("s")
    assert restored is not None and restored.state == {"a": 1, "b": [2]}
    with pytest.raises(SessionNotFoundError):
        await reset_session(store, "nope")


async def test_import_respects_the_target_store_limits() -> None:
    """A line whose state breaks the store's limits is rejected before anything is written."""
    from core.db.limits import StateLimits

    db = InMemoryDb(limits=StateLimits(max_state_bytes=20))
    line = json.dumps({"session_id": "s", "version": 1, "state": {"a": "x" * 50}})
    with pytest.raises(ImportFileError, match=r"line 1: .*limit is 20"):
        await import_jsonl(db, [line])
    assert await db.aload("s") is None


async def test_restore_and_delete_through_admin(store: BaseDb) -> None:
    """restore_version brings back an old state; delete_session removes the session."""
    await _fill(store)
    assert await restore_version(store, "slack:T1:C1:1.0", 1) == 3
    record = await store.aload("slack:T1:C1:1.0")
    assert record is not None and record.state == STATE
    await delete_session(store, "slack:T1:C1:1.0")
    assert [s["session_id"] for s in await list_sessions(store)] == ["{odd}:id"]


async def test_run_history_travels_with_export_and_import(store: BaseDb) -> None:
    """A session's data (run history, name) is exported as JSON and imported back."""
    data = '{"name":"standup","runs":[{"run_id":"r1","input":"hi","status":"completed"}]}'
    await store.asave("s", expected_version=0, changed=texts({"n": 1}), data=data)
    out = io.StringIO()
    await export_jsonl(store, out)
    assert '"data":{"name":"standup"' in out.getvalue()
    await delete_session(store, "s")
    await import_jsonl(store, io.StringIO(out.getvalue()))
    record = await store.aload("s")
    assert record is not None and json.loads(record.data) == json.loads(data)
