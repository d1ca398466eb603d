"""Audit trail: every state-changing save records who, which event, which tool and the patch."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonpatch
import pytest

from core.agent import Agent
from core.db.codec import encode_delta
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits
from core.exceptions import StateLimitError
from core.governance.audit import audit_log
from core.run.history import SessionData
from core.run.origin import EVENT_KEY, PLATFORM_KEY
from core.state.audit import AuditEntry, build_entry, diff, diff_texts, scrub_user
from core.state.audit_text import ago, describe, summarize
from core.testing import ScriptedModel, tool_call

ANA, BO = "slack:T1:ANA", "slack:T1:BO"
THREAD = "slack:T1:C1:1700000000.000100"


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Add a task."""
    tasks = session_state.setdefault("tasks", [])
    tasks.append({"title": title, "done": False})
    return f"added task {len(tasks) - 1}"


def complete_task(session_state: dict[str, Any], index: int) -> str:
    """Mark a task done."""
    session_state["tasks"][index]["done"] = True
    return "done"


def set_note(session_state: dict[str, Any], text: str) -> str:
    """Set the note."""
    session_state["note"] = text
    return "ok"


def _agent(db: InMemoryDb, turns: list[Any] | None = None) -> Agent:
    return Agent(
        model=ScriptedModel(turns or []),
        db=db,
        tools=[add_task, complete_task, set_note],
        session_state={"tasks": []},
    )


def _meta(event: str) -> dict[str, str]:
    return {PLATFORM_KEY: "slack", EVENT_KEY: event}


async def test_two_users_in_one_thread_are_audited_with_their_own_events() -> None:
    """Runs from two users in one thread: each entry names its user, event, tool and patch."""
    db = InMemoryDb()
    turns = [
        tool_call("add_task", title="Ship it"),
        "Added.",
        tool_call("complete_task", index=0),
        "Done.",
    ]
    agent = _agent(db, turns)
    await agent.arun("add ship it", session_id=THREAD, user_id=ANA, metadata=_meta("Ev-ana"))
    await agent.arun("done 0", session_id=THREAD, user_id=BO, metadata=_meta("Ev-bo"))
    newest, oldest = await audit_log(db, THREAD)
    assert (oldest.user_id, oldest.platform, oldest.event_id) == (ANA, "slack", "Ev-ana")
    assert oldest.tools == ("add_task",) and oldest.kind == "run"
    assert oldest.created  # the first save: the patch is from the agent's defaults
    assert oldest.patch == (
        {"op": "add", "path": "/tasks/0", "value": {"title": "Ship it", "done": False}},
    )
    assert (newest.user_id, newest.event_id, newest.tools) == (BO, "Ev-bo", ("complete_task",))
    assert newest.patch == ({"op": "replace", "path": "/tasks/0/done", "value": True},)
    assert newest.inverse == ({"op": "replace", "path": "/tasks/0/done", "value": False},)
    record = await db.aload(THREAD)
    assert record is not None and newest.version == record.version
    assert newest.run_id and newest.run_id != oldest.run_id


async def test_a_run_without_metadata_is_audited_without_platform_or_event() -> None:
    """A library call (no chat metadata) still records who and what, no platform or event."""
    db = InMemoryDb()
    await _agent(db).arun_tool("set_note", {"text": "hi"}, session_id="s", user_id=ANA)
    (entry,) = await audit_log(db, "s")
    assert (entry.user_id, entry.platform, entry.event_id) == (ANA, None, None)
    assert entry.tools == ("set_note",)


async def test_a_run_that_changes_no_state_adds_no_entry_and_tools_do_not_leak() -> None:
    """Only saves that change the state are audited; a save's tools are not repeated later."""
    db = InMemoryDb()
    agent = _agent(db, ["just chatting"])
    await agent.arun_tool("set_note", {"text": "a"}, session_id="s", user_id=ANA)
    await agent.arun("hello", session_id="s", user_id=ANA)
    await agent.arun_tool("add_task", {"title": "x"}, session_id="s", user_id=BO)
    entries = await audit_log(db, "s")
    assert [e.tools for e in entries] == [("add_task",), ("set_note",)]
    record = await db.aload("s")
    assert record is not None and record.version == 3  # the chat turn saved a version, unaudited


async def test_audit_bound_holds_and_is_independent_of_the_run_history() -> None:
    """max_audit_entries keeps the newest entries; a long run history never pushes them out."""
    db = InMemoryDb(limits=StateLimits(max_runs=2, max_audit_entries=4))
    turns: list[Any] = []
    for n in range(7):
        turns += [tool_call("set_note", text=f"n{n}"), "ok"]
    agent = _agent(db, turns)
    for _ in range(7):
        await agent.arun("note", session_id="s", user_id=ANA)
    record = await db.aload("s")
    assert record is not None
    data = SessionData.decode(record.data)
    assert len(data.runs) == 2
    notes = [(AuditEntry.from_dict(e).patch or ({},))[0].get("value") for e in data.audit_entries()]
    assert notes == ["n3", "n4", "n5", "n6"]


async def test_run_history_bytes_never_push_out_audit_entries_or_the_reverse() -> None:
    """Runs and audit entries each have their own share of max_data_bytes."""
    limits = StateLimits(max_runs=50, max_data_bytes=12_000, max_audit_bytes=6_000)
    db = InMemoryDb(limits=limits)
    agent = Agent(model=ScriptedModel(["x" * 900] * 20), db=db, tools=[set_note])
    for n in range(12):
        await agent.arun_tool("set_note", {"text": f"note {n}"}, session_id="s", user_id=ANA)
    for _ in range(12):  # long answers: the run history fills its share
        await agent.arun("talk", session_id="s", user_id=BO)
    record = await db.aload("s")
    assert record is not None and len(record.data.encode()) <= limits.max_data_bytes
    data = SessionData.decode(record.data)
    assert len(data.audit) == 12  # all 12 audit entries survived the long answers
    assert 0 < len(data.runs) < 24
    audit_text = json.dumps("\n".join(data.audit), ensure_ascii=False)
    assert len(audit_text.encode()) + len(',"audit":') <= limits.audit_bytes


def test_audit_bytes_drop_the_oldest_entries() -> None:
    """Entries beyond the audit share of the data are dropped oldest first."""
    limits = StateLimits(max_data_bytes=4_000, max_audit_bytes=1_000)
    data = SessionData()
    for n in range(30):
        data.add_audit({"version": n, "pad": "p" * 90})
    text = data.encode(limits)
    member = json.loads(text)["audit"]
    kept = [json.loads(line) for line in member.split("\n")]
    assert kept[-1]["version"] == 29 and kept[0]["version"] > 0
    assert len(json.dumps(member)) + len(',"audit":') <= 1_000


def test_toggling_one_task_of_a_thousand_diffs_one_value() -> None:
    """The patch names exactly the value that changed, and applies back and forth."""
    old: dict[str, Any] = {"tasks": [{"id": i, "done": False} for i in range(1000)], "n": 1}
    new = copy.deepcopy(old)
    new["tasks"][500]["done"] = True
    new["tasks"].insert(3, {"id": -1, "done": False})
    patch, inverse = diff_texts(encode_delta(old), encode_delta(new))
    assert patch == [  # applied in order: after the insert, task 500 is at index 501
        {"op": "add", "path": "/tasks/3", "value": {"id": -1, "done": False}},
        {"op": "replace", "path": "/tasks/501/done", "value": True},
    ]
    assert jsonpatch.apply_patch(old, patch) == new
    assert jsonpatch.apply_patch(new, inverse) == old


def test_a_change_python_equality_hides_is_still_recorded() -> None:
    """1 -> 1.0 or false -> 0 changed the stored text: recorded as a whole-key replace."""
    patch, inverse = diff_texts({"n": "[1,false]"}, {"n": "[1.0,0]"})
    assert patch == [{"op": "replace", "path": "/n", "value": [1.0, 0]}]
    assert inverse == [{"op": "replace", "path": "/n", "value": [1, False]}]


def test_keys_with_slashes_and_tildes_are_escaped() -> None:
    """Top-level keys become JSON pointer tokens (RFC 6901 escaping)."""
    ops = diff({}, {"a/b~c": 1})
    assert ops == [{"op": "add", "path": "/a~1b~0c", "value": 1}]
    assert jsonpatch.apply_patch({}, ops) == {"a/b~c": 1}


def test_an_oversized_change_keeps_who_and_keys_but_not_its_patches() -> None:
    """An entry larger than its share keeps who and which keys; undo cannot use it."""
    entry = build_entry(
        version=2,
        kind="run",
        old={"big": None},
        new={"big": json.dumps("x" * 500)},
        max_entry_bytes=100,
        user_id=ANA,
    )
    assert entry.patch is None and entry.inverse is None and entry.omitted > 500
    assert entry.keys == ("big",) and entry.user_id == ANA


def test_describe_says_who_what_and_when() -> None:
    """describe: version, user, tool, a short patch summary and a relative time."""
    entry = AuditEntry(
        version=12,
        at=1_000.0,
        kind="run",
        user_id=BO,
        tools=("complete_task",),
        patch=({"op": "replace", "path": "/tasks/3/done", "value": True},),
        inverse=({"op": "replace", "path": "/tasks/3/done", "value": False},),
        keys=("tasks",),
    )
    line = describe(entry, now=1_120.0)
    assert line == f"v12 {BO} used complete_task: tasks/3/done: false → true (2 min ago)"
    assert describe(entry, now=1_120.0, name="@bo").startswith("v12 @bo used")


def test_summaries_of_adds_removes_and_many_ops() -> None:
    """Adds, removes and long patches read as words; credentials are masked."""
    assert summarize([{"op": "add", "path": "/tasks/4", "value": {}}]) == "added tasks/4"
    assert summarize([{"op": "remove", "path": "/x"}]) == "removed key x"
    ops = [{"op": "replace", "path": f"/n{i}", "value": i} for i in range(5)]
    assert summarize(ops).endswith("and 3 more")
    secret = summarize([{"op": "replace", "path": "/api_token", "value": "s3cr3t"}])
    assert "s3cr3t" not in secret and "redacted" in secret


def test_ago_reads_like_a_person() -> None:
    """Relative times: just now, minutes, hours, days."""
    assert [ago(s) for s in (5, 130, 3 * 3600, 4 * 86400)] == [
        "just now",
        "2 min ago",
        "3 h ago",
        "4 days ago",
    ]


def test_scrub_user_rewrites_only_that_users_audit_ids() -> None:
    """scrub_user pseudonymises a user's id in audit entries and leaves the rest alone."""
    data = SessionData(name="standup")
    data.add_audit({"version": 1, "user_id": ANA})
    data.add_audit({"version": 2, "user_id": BO})
    text = data.encode(StateLimits())
    scrubbed = SessionData.decode(scrub_user(text, ANA, "erased-user-1"))
    assert [e["user_id"] for e in scrubbed.audit_entries()] == ["erased-user-1", BO]
    assert scrubbed.name == "standup"
    assert scrub_user(text, "nobody", "x") == text and scrub_user("", ANA, "x") == ""


async def test_a_save_the_store_refuses_leaves_no_entry() -> None:
    """A change over the state size limit is not saved, so it is not in the audit trail."""
    db = InMemoryDb(limits=StateLimits(max_state_bytes=200))
    agent = _agent(db)
    await agent.arun_tool("set_note", {"text": "small"}, session_id="s", user_id=ANA)
    with pytest.raises(StateLimitError):
        await agent.arun_tool("set_note", {"text": "x" * 300}, session_id="s", user_id=BO)
    await agent.arun_tool("set_note", {"text": "fine"}, session_id="s", user_id=ANA)
    entries = await audit_log(db, "s")
    assert [(e.version, e.user_id) for e in entries] == [(2, ANA), (1, ANA)]
    assert entries[0].inverse == ({"op": "replace", "path": "/note", "value": "small"},)
