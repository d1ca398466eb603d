"""``statebot state history`` and ``state diff``: who changed what, readable and as JSON,
on a real SQLite file written by real runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bots.cli import audit_view
from bots.cli.main import main
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.run.origin import EVENT_KEY, PLATFORM_KEY
from core.state.audit import AuditEntry
from core.testing import ScriptedModel

S = "slack:T1:C1:1700000000.000100"
ANA, BO = "slack:T1:ANA", "slack:T1:BO"


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL must not turn these SQLite tests into Redis ones."""
    monkeypatch.delenv("REDIS_URL", raising=False)


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Add a task."""
    session_state["tasks"].append({"title": title, "done": False})
    return "ok"


def complete_task(session_state: dict[str, Any], index: int) -> str:
    """Mark a task done."""
    session_state["tasks"][index]["done"] = True
    return "ok"


def set_token(session_state: dict[str, Any], value: str) -> str:
    """Store a credential (to check masking)."""
    session_state["api_token"] = value
    return "ok"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite session changed by two users: ana adds a task, bo completes it."""
    url = f"sqlite:///{tmp_path}/cli.db"

    async def fill() -> None:
        db = SqliteDb(db_url=url)
        agent = Agent(
            model=ScriptedModel(["chat"]),
            db=db,
            tools=[add_task, complete_task, set_token],
            session_state={"tasks": []},
        )
        for user, tool, args in (
            (ANA, "add_task", {"title": "Ship it"}),
            (BO, "complete_task", {"index": 0}),
            (BO, "set_token", {"value": "s3cr3t"}),
        ):
            meta = {PLATFORM_KEY: "slack", EVENT_KEY: f"Ev-{tool}"}
            await agent.arun_tool(tool, args, session_id=S, user_id=user, metadata=meta)
        await agent.arun("hello", session_id=S, user_id=ANA)  # a version without a change
        await db.aclose()

    asyncio.run(fill())
    return url


def _run(db_url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["state", "--db-url", db_url, *args])
    return result.exit_code, result.output


def test_history_reads_as_who_did_what(db_url: str) -> None:
    """`state history` prints one line per version: user, tool, change, relative time."""
    code, out = _run(db_url, "history", S)
    assert code == 0, out
    lines = [line.rsplit(" (", 1)[0] for line in out.splitlines()]  # "(2 min ago)" aside
    assert lines == [
        f"v4 {ANA} saved, state unchanged (run history only)",
        f"v3 {BO} used set_token: added key api_token",
        f"v2 {BO} used complete_task: tasks/0/done: false → true",
        f"v1 {ANA} used add_task: added tasks/0",
    ]
    assert all(line.endswith(" ago)") or line.endswith("(just now)") for line in out.splitlines())
    assert "s3cr3t" not in out
    code, out = _run(db_url, "history", S, "-n", "2")
    assert code == 0 and len(out.splitlines()) == 2


def test_history_json_carries_each_versions_audit_entry(db_url: str) -> None:
    """`state history --json`: versions with their change (patch, user, event), masked."""
    code, out = _run(db_url, "history", S, "--json")
    assert code == 0, out
    rows = json.loads(out)
    assert [r["version"] for r in rows] == [4, 3, 2, 1]
    assert rows[0]["change"] is None
    change = rows[2]["change"]
    assert (change["user_id"], change["event_id"], change["tools"]) == (
        BO,
        "Ev-complete_task",
        ["complete_task"],
    )
    assert change["patch"] == [{"op": "replace", "path": "/tasks/0/done", "value": True}]
    assert rows[1]["change"]["patch"][0]["value"] == "***redacted***"
    assert "s3cr3t" not in out


def test_diff_prints_the_patch_readably_and_as_json(db_url: str) -> None:
    """`state diff S 1 3` lists each change; --json gives the RFC 6902 ops, masked."""
    code, out = _run(db_url, "diff", S, "1", "3")
    assert code == 0, out
    assert out.splitlines() == [
        "v1 → v3: 2 changes",
        "  tasks/0/done: false → true",
        "  added key api_token",
    ]
    code, out = _run(db_url, "diff", S, "2", "3", "--json")
    assert code == 0 and json.loads(out) == [
        {"op": "add", "path": "/api_token", "value": "***redacted***"}
    ]
    code, out = _run(db_url, "diff", S, "2", "3", "--json", "--reveal")
    assert json.loads(out)[0]["value"] == "s3cr3t"
    code, out = _run(db_url, "diff", S, "3", "4")
    assert code == 0 and "hold the same state" in out


def test_diff_of_a_missing_version_names_the_versions_kept(db_url: str) -> None:
    """A version the store does not keep is a clean error naming what it keeps."""
    code, out = _run(db_url, "diff", S, "1", "9")
    assert code == 2 and "no version 9" in out and "1..4" in out


def test_cli_restore_is_audited_with_the_operator(db_url: str) -> None:
    """`state restore` records a restore entry by cli:<login> naming the version."""
    code, out = _run(db_url, "restore", S, "1")
    assert code == 0, out
    first = _run(db_url, "history", S, "-n", "1")[1]
    assert first.startswith("v5 cli") and "restored v1" in first


def test_versions_without_entries_say_so() -> None:
    """A version saved with no audit entry reads as such; one older than the history too."""
    versions = [
        {"version": 3, "user_id": "u", "saved_at": 100.0, "state": {"a": 2}},
        {"version": 2, "user_id": "u", "saved_at": 90.0, "state": {"a": 1}},
    ]
    old = AuditEntry(version=1, at=80.0, kind="run", user_id="w", keys=("a",), patch=())
    lines = audit_view.history_lines(versions, [old], now=100.0 + 600)
    assert lines == [
        "v3 u saved (no audit record) (10 min ago)",
        "v2 u saved (no audit record) (10 min ago)",
        "v1 w changed the state: changed nothing (10 min ago)",
    ]
