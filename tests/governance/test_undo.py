"""Undo rules beyond the basics: saves without entries, oversized changes, lists, admin ops."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.db.codec import encode_delta
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits
from core.exceptions import NothingToUndoError, UndoConflictError
from core.governance.audit import audit_log, undo_last
from core.governance.sessions import restore_version
from core.governance.undo import find_conflict
from core.state.audit import AuditEntry

ANA, BO = "slack:T1:ANA", "slack:T1:BO"


def set_value(session_state: dict[str, Any], key: str, value: Any) -> str:
    """Set one key."""
    session_state[key] = value
    return "ok"


def set_field(session_state: dict[str, Any], key: str, field: str, value: Any) -> str:
    """Set one field of a dict."""
    session_state[key][field] = value
    return "ok"


def _agent(db: InMemoryDb) -> Agent:
    return Agent(db=db, tools=[set_value, set_field], session_state={"cfg": {}, "x": 0})


async def test_a_save_without_an_entry_that_changed_the_value_blocks_undo() -> None:
    """A write that left no audit entry still blocks undo: the value is not what A wrote."""
    db = InMemoryDb()
    await _agent(db).arun_tool("set_value", {"key": "x", "value": 1}, session_id="s", user_id=ANA)
    await db.asave("s", expected_version=1, changed=encode_delta({"x": 5}))  # no entry
    with pytest.raises(UndoConflictError, match="no longer what v1 wrote") as caught:
        await undo_last(db, "s", ANA)
    assert caught.value.later_version is None and caught.value.path == "x"
    record = await db.aload("s")
    assert record is not None and record.version == 2 and record.state["x"] == 5


async def test_a_change_too_large_for_the_trail_cannot_be_undone() -> None:
    """An entry kept without its patches: undo refuses and says an admin can restore."""
    db = InMemoryDb(limits=StateLimits(max_data_bytes=4_000, max_audit_bytes=2_000))
    agent = _agent(db)
    await agent.arun_tool("set_value", {"key": "x", "value": 1}, session_id="s", user_id=ANA)
    await agent.arun_tool(
        "set_value", {"key": "x", "value": "y" * 900}, session_id="s", user_id=ANA
    )
    (entry, _) = await audit_log(db, "s", limit=2)
    assert entry.patch is None and entry.keys == ("x",)
    with pytest.raises(NothingToUndoError, match=r"too large.*restore v1"):
        await undo_last(db, "s", ANA)


async def test_other_fields_of_the_same_object_do_not_conflict() -> None:
    """A sets cfg/a, B later sets cfg/b: A's undo removes cfg/a and keeps cfg/b."""
    db = InMemoryDb()
    agent = _agent(db)
    await agent.arun_tool(
        "set_field", {"key": "cfg", "field": "a", "value": 1}, session_id="s", user_id=ANA
    )
    await agent.arun_tool(
        "set_field", {"key": "cfg", "field": "b", "value": 2}, session_id="s", user_id=BO
    )
    result = await undo_last(db, "s", ANA)
    record = await db.aload("s")
    assert record is not None and record.state["cfg"] == {"b": 2}
    assert result.summary == "added cfg/a"


async def test_a_later_change_that_was_undone_does_not_block() -> None:
    """B changed A's path, then B undid it: A's undo goes through (the pair cancels out)."""
    db = InMemoryDb()
    agent = _agent(db)
    await agent.arun_tool("set_value", {"key": "x", "value": 1}, session_id="s", user_id=ANA)
    await agent.arun_tool("set_value", {"key": "x", "value": 2}, session_id="s", user_id=BO)
    await undo_last(db, "s", BO)
    await undo_last(db, "s", ANA)
    record = await db.aload("s")
    assert record is not None and record.state["x"] == 0


async def test_admin_operations_are_not_undone_by_undo() -> None:
    """A restore by an admin is not the admin's change to undo (restore again instead)."""
    db = InMemoryDb()
    agent = _agent(db)
    await agent.arun_tool("set_value", {"key": "x", "value": 1}, session_id="s", user_id=ANA)
    await restore_version(db, "s", 1, actor=BO)
    with pytest.raises(NothingToUndoError, match="no change of yours"):
        await undo_last(db, "s", BO)


def _entry(version: int, ops: list[dict[str, Any]], user: str = BO) -> AuditEntry:
    return AuditEntry(
        version=version, at=0.0, kind="run", user_id=user, patch=tuple(ops), keys=("t",)
    )


@pytest.mark.parametrize(
    ("mine", "theirs", "conflict"),
    [
        ({"op": "replace", "path": "/t/3/done"}, {"op": "replace", "path": "/t/3"}, True),
        ({"op": "replace", "path": "/t/3"}, {"op": "replace", "path": "/t/3/done"}, True),
        ({"op": "replace", "path": "/t/3/done"}, {"op": "replace", "path": "/t/4/done"}, False),
        ({"op": "replace", "path": "/t/3/done"}, {"op": "add", "path": "/t/0"}, True),
        ({"op": "replace", "path": "/t/3/done"}, {"op": "remove", "path": "/t/3"}, True),
        ({"op": "replace", "path": "/t/3/done"}, {"op": "add", "path": "/t/4"}, False),
        ({"op": "add", "path": "/t/4"}, {"op": "replace", "path": "/t/1/done"}, False),
        ({"op": "add", "path": "/t/4"}, {"op": "add", "path": "/t/5"}, False),
        ({"op": "add", "path": "/t/4"}, {"op": "remove", "path": "/t/2"}, True),
        ({"op": "replace", "path": "/t"}, {"op": "replace", "path": "/u"}, False),
        ({"op": "replace", "path": "/t/a"}, {"op": "move", "from": "/t/a", "path": "/t/b"}, True),
    ],
)
def test_conflict_rule(mine: dict[str, Any], theirs: dict[str, Any], conflict: bool) -> None:
    """Overlap: one path inside the other, or a later insert/removal at or before my index."""
    entry, later = _entry(1, [{**mine, "value": 1}], ANA), _entry(2, [{**theirs, "value": 2}])
    assert (find_conflict(entry, [entry, later]) is not None) is conflict
