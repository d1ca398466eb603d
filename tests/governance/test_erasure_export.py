"""export_user: the user's own data for an access request, and none of anyone else's;
erase_user's report when a store fails midway."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.exceptions import StoreUnavailableError
from core.governance import erasure
from core.governance.erasure import erase_user
from core.governance.user_export import export_user
from tests.db.erasure_fixtures import (
    ANA,
    BOB,
    OWN,
    SHARED,
    deployment,
    deployment_kind,
    fill,
    traces,
)

__all__ = ["deployment", "deployment_kind"]  # the fixtures, imported for pytest


async def test_export_holds_the_users_data(deployment: BaseDb) -> None:
    """Her DM whole, her run in the shared thread, her memories and reminders."""
    await fill(deployment)

    export = await export_user(deployment, ANA)

    assert export["user_id"] == ANA
    assert [s["session_id"] for s in export["sessions"]] == [OWN]
    assert export["sessions"][0]["state"] == {"notes": ["call mum", "buy milk"], "me": ANA}
    assert [r["input"] for r in export["sessions"][0]["data"]["runs"]] == ["a1", "a2"]
    [shared] = export["shared_sessions"]
    assert shared["session_id"] == SHARED
    assert [r["input"] for r in shared["runs"]] == ["a3"]
    assert shared["state_keys_naming"] == ["tasks", "votes"]
    assert sorted(m["memory"] for m in export["memories"]) == ["likes tea", "works at night"]
    assert sorted(s["schedule_id"] for s in export["schedules"]) == ["s-ana", "s-own"]
    json.dumps(export)  # plain JSON


async def test_export_holds_nothing_of_the_other_user(deployment: BaseDb) -> None:
    """Bob's runs, memory, reminder and tasks are not in Ana's export."""
    await fill(deployment)

    text = json.dumps(await export_user(deployment, ANA))

    assert BOB not in text
    assert "likes coffee" not in text and "s-bob" not in text and "review" not in text


async def test_a_failing_store_is_reported_and_a_rerun_finishes(
    deployment: BaseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store failing on one session: the report names it, the rest is done; a re-run
    after the fault completes the erasure."""
    await fill(deployment)
    real = erasure._scrub_versions

    async def failing(*args: Any) -> bool:
        raise StoreUnavailableError("durable store down")

    monkeypatch.setattr(erasure, "_scrub_versions", failing)
    report = await erase_user(deployment, ANA)

    assert not report.complete
    assert set(report.errors) == {SHARED}
    assert "durable store down" in report.errors[SHARED]
    assert report.sessions_deleted == [OWN] and report.memories_deleted == 2
    assert await traces(deployment, ANA)  # the stored versions still name her

    monkeypatch.setattr(erasure, "_scrub_versions", real)
    again = await erase_user(deployment, ANA)
    assert again.complete
    assert await traces(deployment, ANA) == []


def assign(session_state: dict[str, Any], title: str, who: str) -> str:
    """Add a task assigned to someone."""
    session_state["tasks"].append({"title": title, "assignee": who})
    return f"assigned {title}"


async def test_export_has_the_audit_entries_naming_the_user(deployment: BaseDb) -> None:
    """In a thread with real runs of two users, her export holds her audit entry only."""
    agent = Agent(db=deployment, session_state={"tasks": []}, tools=[assign])
    await agent.arun_tool("assign", {"title": "a", "who": ANA}, session_id=SHARED, user_id=ANA)
    await agent.arun_tool("assign", {"title": "b", "who": BOB}, session_id=SHARED, user_id=BOB)

    export = await export_user(deployment, ANA)

    [shared] = export["shared_sessions"]
    assert [e["user_id"] for e in shared["audit"]] == [ANA]
    assert BOB not in json.dumps(export)
