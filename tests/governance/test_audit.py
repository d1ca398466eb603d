"""Audit trail, diffs and undo through core.governance, on every backend (InMemoryDb, SQLite,
PostgreSQL, Redis) and on Redis with its durable store."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.exceptions import (
    NothingToUndoError,
    SessionNotFoundError,
    UndoConflictError,
    VersionNotFoundError,
)
from core.governance.audit import audit_log, describe, diff_versions, undo_last
from core.governance.sessions import reset_session, restore_version
from core.governance.transfer import export_jsonl, import_jsonl
from core.run.origin import EVENT_KEY, PLATFORM_KEY
from core.testing import ScriptedModel

ANA, BO = "slack:T1:ANA", "slack:T1:BO"
S = "slack:T1:C1:1700000000.000100"


def set_value(session_state: dict[str, Any], key: str, value: Any) -> str:
    """Set one key of the state."""
    session_state[key] = value
    return "ok"


def set_item(session_state: dict[str, Any], key: str, field: str, value: Any) -> str:
    """Set one field of a dict in the state."""
    session_state.setdefault(key, {})[field] = value
    return "ok"


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Append a task."""
    session_state.setdefault("tasks", []).append({"title": title, "done": False})
    return "ok"


def complete_task(session_state: dict[str, Any], index: int) -> str:
    """Mark a task done."""
    session_state["tasks"][index]["done"] = True
    return "ok"


async def _call(db: BaseDb, user: str, tool: str, **arguments: Any) -> None:
    agent = Agent(
        model=ScriptedModel([]),
        db=db,
        tools=[set_value, set_item, add_task, complete_task],
        session_state={"x": 0, "y": 0},
    )
    meta = {PLATFORM_KEY: "slack", EVENT_KEY: f"Ev-{user}-{time.monotonic_ns()}"}
    await agent.arun_tool(tool, arguments, session_id=S, user_id=user, metadata=meta)


async def _state(db: BaseDb) -> dict[str, Any]:
    record = await db.aload(S)
    assert record is not None
    return record.state


async def test_undo_reverts_only_the_callers_change(store: BaseDb) -> None:
    """A changes x, B changes y, A undoes: x reverted, y kept, a new version audited as undo."""
    await _call(store, ANA, "set_value", key="x", value=1)
    await _call(store, BO, "set_value", key="y", value=2)
    before = (await store.aload(S)).version  # type: ignore[union-attr]
    result = await undo_last(store, S, ANA, origin={PLATFORM_KEY: "slack"})
    assert await _state(store) == {"x": 0, "y": 2}
    assert result.version == before + 1 and result.undone_version == 1
    assert result.summary == "x: 0 → 1"
    newest = (await audit_log(store, S, limit=1))[0]
    assert (newest.kind, newest.user_id, newest.source_version) == ("undo", ANA, 1)
    assert newest.platform == "slack" and newest.version == result.version


async def test_undo_is_refused_when_a_later_change_touched_the_same_path(store: BaseDb) -> None:
    """B later changed the same path: refused, the message names B and the path; nothing saved."""
    await _call(store, ANA, "set_item", key="cfg", field="mode", value="a")
    await _call(store, BO, "set_item", key="cfg", field="mode", value="b")
    before = await store.aload(S)
    with pytest.raises(UndoConflictError) as caught:
        await undo_last(store, S, ANA)
    message = str(caught.value)
    assert BO in message and "cfg/mode" in message and "v2" in message
    assert caught.value.later_user == BO and caught.value.path == "cfg/mode"
    after = await store.aload(S)
    assert after is not None and before is not None
    assert (after.version, after.state) == (before.version, before.state)


async def test_undo_of_an_added_task_keeps_a_later_change_to_an_earlier_task(
    store: BaseDb,
) -> None:
    """Three-way: A adds task 1, B completes task 0, A undoes: task 1 gone, task 0 still done."""
    await _call(store, ANA, "add_task", title="zero")
    await _call(store, ANA, "add_task", title="one")
    await _call(store, BO, "complete_task", index=0)
    await undo_last(store, S, ANA)
    assert (await _state(store))["tasks"] == [{"title": "zero", "done": True}]


async def test_undo_refuses_when_a_later_insert_moved_the_item(store: BaseDb) -> None:
    """B removed an item before A's: A's inverse would hit another item, so it is refused."""
    await _call(store, ANA, "set_value", key="tasks", value=[{"done": False}, {"done": False}])
    await _call(store, BO, "add_task", title="later")
    await _call(store, ANA, "complete_task", index=1)
    await _call(store, BO, "set_value", key="tasks", value=[{"done": True}])
    with pytest.raises(UndoConflictError, match="tasks"):
        await undo_last(store, S, ANA)


async def test_nothing_to_undo_and_undo_walks_back_without_redo(store: BaseDb) -> None:
    """No change of the caller: NothingToUndoError; repeated undos walk back, never redo."""
    await _call(store, ANA, "set_value", key="x", value=1)
    await _call(store, ANA, "set_value", key="x", value=2)
    with pytest.raises(NothingToUndoError, match="no change of yours"):
        await undo_last(store, S, BO)
    assert (await undo_last(store, S, ANA)).undone_version == 2
    assert (await _state(store))["x"] == 1
    assert (await undo_last(store, S, ANA)).undone_version == 1
    assert (await _state(store))["x"] == 0
    with pytest.raises(NothingToUndoError, match="all undone already"):
        await undo_last(store, S, ANA)


async def test_restore_reset_and_import_record_entries(store: BaseDb) -> None:
    """restore, reset and import --replace each save an audited version naming the actor."""
    await _call(store, ANA, "set_value", key="x", value=1)
    await _call(store, ANA, "set_value", key="x", value=2)
    restored = await restore_version(store, S, 1, actor="admin:ops")
    reset = await reset_session(store, S, actor="admin:ops")
    out = io.StringIO()
    await export_jsonl(store, out)
    await _call(store, BO, "set_value", key="y", value=9)
    await import_jsonl(store, out.getvalue().splitlines(), replace=True)
    entries = await audit_log(store, S, limit=4)
    assert [e.kind for e in entries] == ["import", "run", "reset", "restore"]
    assert entries[3].version == restored and entries[3].source_version == 1
    assert entries[3].patch == ({"op": "replace", "path": "/x", "value": 1},)
    assert entries[2].version == reset and entries[2].user_id == "admin:ops"
    assert {op["path"] for op in entries[2].patch or ()} == {"/x", "/y"}
    assert {"op": "remove", "path": "/y"} in (entries[0].patch or ())  # the file had no y
    now = time.time()
    assert describe(entries[3], now=now).startswith(f"v{restored} admin:ops restored v1")
    assert "removed key y" in describe(entries[0], now=now)


async def test_diff_versions_uses_the_stored_versions(store: BaseDb) -> None:
    """diff_versions gives RFC 6902 ops between two kept versions; a missing one is named."""
    await _call(store, ANA, "add_task", title="a")
    await _call(store, ANA, "complete_task", index=0)
    assert await diff_versions(store, S, 1, 2) == [
        {"op": "replace", "path": "/tasks/0/done", "value": True}
    ]
    assert await diff_versions(store, S, 2, 1) == [
        {"op": "replace", "path": "/tasks/0/done", "value": False}
    ]
    with pytest.raises(VersionNotFoundError, match="no version 9"):
        await diff_versions(store, S, 1, 9)
    with pytest.raises(SessionNotFoundError):
        await diff_versions(store, "nope", 1, 2)


async def test_audit_reaches_the_durable_store_and_undo_works_through_redis(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """RedisDb with a durable store: entries are snapshotted with the state; undo saves to both."""
    durable = SqliteDb(db_file=tmp_path / "durable.db")
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    try:
        await _call(db, ANA, "set_value", key="x", value=1)
        await _call(db, BO, "set_value", key="y", value=2)
        await db.aflush()
        assert [e.user_id for e in await audit_log(durable, S)] == [BO, ANA]
        result = await undo_last(db, S, ANA)
        await db.aflush()
        record = await durable.aload(S)
        assert record is not None and record.version == result.version
        assert record.state == {"x": 0, "y": 2}
        assert (await audit_log(durable, S, limit=1))[0].kind == "undo"
    finally:
        await db.aclose()
        await durable.aclose()
