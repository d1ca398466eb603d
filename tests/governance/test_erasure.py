"""erase_user: no trace of the user in any store; the others' data stays; a true report."""

from __future__ import annotations

import json
from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.db.redis import RedisDb
from core.governance.erasure import erase_user, known_users
from core.governance.pseudonym import replace_user, scrub_data
from core.run.history import SessionData
from core.schedule.stores import schedule_store
from tests.db.erasure_fixtures import (
    ANA,
    BOB,
    OWN,
    SHARED,
    deployment,
    deployment_kind,
    fill,
    redis_alone,
    save_run,
    traces,
)

__all__ = ["deployment", "deployment_kind", "redis_alone"]  # the fixtures, for pytest


async def test_erase_leaves_no_trace_in_any_store(deployment: BaseDb) -> None:
    """After erase_user, no Redis key or value, SQL row or history version names the user."""
    await fill(deployment)
    assert await traces(deployment, ANA)  # the scan does see her before

    await erase_user(deployment, ANA, pseudonym="erased-user-x")

    assert await traces(deployment, ANA) == []


async def test_report_says_what_was_done_per_store(deployment: BaseDb) -> None:
    """The report counts sessions deleted and scrubbed, runs, memories and schedules."""
    await fill(deployment)

    report = await erase_user(deployment, ANA, pseudonym="erased-user-x")

    assert report.complete and report.errors == {}
    assert report.sessions_deleted == [OWN]
    assert report.sessions_scrubbed == [SHARED]
    assert report.memories_deleted == 2
    assert report.runs_removed == 1
    assert report.schedules_deleted == 2  # one in her DM, one in the shared thread
    assert report.usage_counters_deleted == 2  # hers and her DM's
    assert report.history_rows_scrubbed + report.redis_records_scrubbed > 0
    assert report.to_dict()["sessions_deleted"] == [OWN]


async def test_the_other_users_runs_state_and_data_stay(deployment: BaseDb) -> None:
    """Bob's runs, tasks, votes, memory and reminder survive; Ana's id becomes the pseudonym."""
    await fill(deployment)
    before = await deployment.aload(SHARED)
    assert before is not None

    await erase_user(deployment, ANA, pseudonym="erased-user-x")

    after = await deployment.aload(SHARED)
    assert after is not None and after.version == before.version + 1
    assert after.state["tasks"] == [
        {"title": "design", "assignee": "erased-user-x"},
        {"title": "review", "assignee": BOB},
    ]
    assert after.state["votes"] == {"erased-user-x": 1, BOB: 3}
    runs = SessionData.decode(after.data).runs
    assert [r.user_id for r in runs] == [BOB, BOB]
    assert await deployment.aload(OWN) is None
    assert [m.memory_id for m in await deployment.aget_memories(BOB)] == ["m3"]
    assert [s.schedule_id for s in await schedule_store(deployment).alist(SHARED)] == ["s-bob"]
    history = await deployment.ahistory(SHARED, limit=50)
    assert {e.user_id for e in history} <= {BOB, "erased-user-x", "erasure"}
    assert all(ANA not in repr(e.state) for e in history)


async def test_erasing_again_finds_nothing_and_changes_nothing(deployment: BaseDb) -> None:
    """A second erase is a no-op with an empty, complete report (idempotent re-run)."""
    await fill(deployment)
    await erase_user(deployment, ANA)
    version = (await deployment.aload(SHARED)).version  # type: ignore[union-attr]

    again = await erase_user(deployment, ANA)

    assert again.complete
    assert (again.sessions_deleted, again.sessions_scrubbed, again.memories_deleted) == ([], [], 0)
    assert (await deployment.aload(SHARED)).version == version  # type: ignore[union-attr]


async def test_a_run_saved_after_the_erasure_is_kept(deployment: BaseDb) -> None:
    """The shared session keeps working: Bob's next run saves on top of the erased version."""
    await fill(deployment)
    await erase_user(deployment, ANA, pseudonym="erased-user-x")

    await save_run(deployment, SHARED, BOB, {"tasks": [], "votes": {}}, "b3")

    record = await deployment.aload(SHARED)
    assert record is not None and record.state == {"tasks": [], "votes": {}}


async def test_a_dirty_session_not_yet_snapshotted_is_erased(deployment: BaseDb) -> None:
    """A session only in Redis (never snapshotted) is found and deleted as well."""
    await save_run(deployment, "slack:T1:DNEW", ANA, {"x": ANA}, "n1")
    if isinstance(deployment, RedisDb):
        assert deployment.snapshot_to is not None
        assert await deployment.snapshot_to.aload("slack:T1:DNEW") is None

    report = await erase_user(deployment, ANA)

    assert report.sessions_deleted == ["slack:T1:DNEW"]
    assert await traces(deployment, ANA) == []


def test_only_exact_occurrences_are_replaced() -> None:
    """A string that merely contains the id (another user's longer id, free text) is kept."""
    value = {"a": ANA, "b": ANA + "2", "c": f"ask {ANA}", ANA: [ANA]}
    replaced, changed = replace_user(value, ANA, "P")
    assert changed
    assert replaced == {"a": "P", "b": ANA + "2", "c": f"ask {ANA}", "P": ["P"]}
    assert value["a"] == ANA  # the input is not mutated


def test_scrub_data_drops_the_users_runs_and_renames_the_rest() -> None:
    """Runs of the user go; an audit entry naming them stays with the pseudonym."""
    text = json.dumps(
        {
            "name": None,
            "runs": [{"run_id": "1", "user_id": ANA}, {"run_id": "2", "user_id": BOB}],
            "audit": [{"version": 3, "user_id": ANA}],
        },
        separators=(",", ":"),
    )
    scrubbed = scrub_data(text, ANA, "P")
    assert ANA not in scrubbed
    assert '"run_id":"2"' in scrubbed and '"run_id":"1"' not in scrubbed
    assert '"audit":[{"version":3,"user_id":"P"}]' in scrubbed


async def test_redis_alone_is_erased_too(redis_alone: RedisDb) -> None:
    """Without a durable store, sessions, memories and schedules in Redis are erased."""
    await fill(redis_alone)

    report = await erase_user(redis_alone, ANA)

    assert report.complete and report.sessions_deleted == [OWN]
    assert report.memories_deleted == 2 and report.schedules_deleted == 2
    assert await traces(redis_alone, ANA) == []
    assert await traces(redis_alone, BOB)


def assign(session_state: dict[str, Any], title: str, who: str) -> str:
    """Add a task assigned to someone."""
    session_state["tasks"].append({"title": title, "assignee": who})
    return f"assigned {title}"


async def test_real_runs_with_audit_entries_leave_no_trace(deployment: BaseDb) -> None:
    """Runs of an agent (run history, audit entries with patches) by two users in one
    thread: erasing one leaves no trace of them and keeps the other's task."""
    agent = Agent(db=deployment, session_state={"tasks": []}, tools=[assign])
    await agent.arun_tool("assign", {"title": "a", "who": ANA}, session_id=SHARED, user_id=ANA)
    await agent.arun_tool("assign", {"title": "b", "who": BOB}, session_id=SHARED, user_id=BOB)
    record = await deployment.aload(SHARED)
    assert record is not None and ANA in record.data  # her run and audit entry

    report = await erase_user(deployment, ANA, pseudonym="erased-user-x")

    assert report.complete and report.sessions_scrubbed == [SHARED]
    assert await traces(deployment, ANA) == []
    output = await agent.arun_tool(
        "assign", {"title": "c", "who": BOB}, session_id=SHARED, user_id=BOB
    )
    assert output.session_state is not None
    assert [t["assignee"] for t in output.session_state["tasks"]] == ["erased-user-x", BOB, BOB]


async def test_known_users_are_the_last_users_and_run_users_of_every_session(
    store: BaseDb,
) -> None:
    """What ``statebot state erase --user`` offers for a partial id: every stored user."""
    await fill(store)
    assert {ANA, BOB} <= await known_users(store)
