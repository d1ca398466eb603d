"""core.governance.search: the console's paged listing, the same answers on every store."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.postgres import PostgresDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.governance.search import Cursor, SessionQuery, search_sessions
from core.governance.transfer import import_jsonl
from core.testing import ScriptedModel

SESSIONS = [
    # session id, agent, user
    ("slack:T1:C1:100.1", "taskboard", "slack:T1:U1"),
    ("slack:T1:C1:100.2", "shopping", "slack:T1:U2"),
    ("slack:T1:C2", "taskboard", "slack:T1:U2"),
    ("slack:T10:C1", "taskboard", "slack:T10:U1"),  # T1 is a prefix of T10 as text only
    ("slack:T2:C1", "taskboard", "slack:T2:U9"),
    ("slack:T1:C10", "taskboard", "slack:T1:U3"),  # C1 is a prefix of C10 as text only
    ("discord:G1:C1:th", "shopping", "discord:G1:U1"),
]


@pytest.fixture(params=["memory", "sqlite", "postgres", "redis"])
def services(request: pytest.FixtureRequest) -> tuple[str, dict[str, object]]:
    """The backend and the service fixtures it needs, set up outside the event loop."""
    needs = {"postgres": ["postgres_schema"], "redis": ["redis_url", "key_prefix"]}
    return request.param, {n: request.getfixturevalue(n) for n in needs.get(request.param, [])}


@pytest.fixture
async def db(services: tuple[str, dict[str, object]], tmp_path: Path) -> AsyncIterator[BaseDb]:
    """A store holding SESSIONS, saved in list order (the last is the most recent)."""
    kind, fixtures = services
    store: BaseDb
    if kind == "memory":
        store = InMemoryDb()
    elif kind == "sqlite":
        store = SqliteDb(db_file=tmp_path / "s.db")
    elif kind == "postgres":
        url, schema = fixtures["postgres_schema"]  # type: ignore[misc]
        store = PostgresDb(db_url=url, schema=schema)
    else:
        store = RedisDb(
            db_url=str(fixtures["redis_url"]),
            key_prefix=str(fixtures["key_prefix"]),
            snapshot_to=SqliteDb(db_file=tmp_path / "durable.db"),
            run_snapshotter=False,
        )
    await import_jsonl(
        store,
        [
            json.dumps(
                {
                    "session_id": session_id,
                    "version": 1,
                    "owner_id": agent,
                    "user_id": user,
                    "state": {"n": 1},
                    "created_at": 1_700_000_000.0,
                    "updated_at": 1_700_000_000.0 + i,
                }
            )
            for i, (session_id, agent, user) in enumerate(SESSIONS)
        ],
    )
    try:
        yield store
    finally:
        await store.aclose()


def ids(page: object) -> list[str]:
    return [r.session_id for r in page.rows]  # type: ignore[attr-defined]


async def test_lists_most_recent_first(db: BaseDb) -> None:
    """Without conditions every session is listed, the most recently changed first."""
    page = await search_sessions(db, SessionQuery())
    assert ids(page) == [s[0] for s in reversed(SESSIONS)]
    assert page.next_cursor is None
    assert all(r.size > 0 and r.version == 1 for r in page.rows)


async def test_prefix_is_a_workspace_not_a_text_prefix(db: BaseDb) -> None:
    """Prefix "slack:T1:" finds workspace T1's sessions and not T10's."""
    page = await search_sessions(db, SessionQuery(id_prefix="slack:T1:"))
    assert set(ids(page)) == {
        "slack:T1:C1:100.1",
        "slack:T1:C1:100.2",
        "slack:T1:C10",
        "slack:T1:C2",
    }
    page = await search_sessions(db, SessionQuery(id_prefix="slack:T1:C1"))
    assert sorted(ids(page)) == ["slack:T1:C1:100.1", "slack:T1:C1:100.2"]
    page = await search_sessions(db, SessionQuery(id_prefix="slack:T1:C2"))
    assert ids(page) == ["slack:T1:C2"]


async def test_scope_and_search_both_hold(db: BaseDb) -> None:
    """A scoped viewer searching another workspace gets nothing from it."""
    page = await search_sessions(db, SessionQuery(id_prefix="slack:T2:", scope="slack:T1:"))
    assert ids(page) == []
    page = await search_sessions(db, SessionQuery(id_prefix="slack:T1:C1:", scope="slack:T1:"))
    assert sorted(ids(page)) == ["slack:T1:C1:100.1", "slack:T1:C1:100.2"]


async def test_agent_and_user(db: BaseDb) -> None:
    """Agent matches the owner id; user matches the user who changed the session."""
    page = await search_sessions(db, SessionQuery(agent="shopping"))
    assert sorted(ids(page)) == ["discord:G1:C1:th", "slack:T1:C1:100.2"]
    page = await search_sessions(db, SessionQuery(user="slack:T1:U2"))
    assert sorted(ids(page)) == ["slack:T1:C1:100.2", "slack:T1:C2"]


async def test_pages_follow_the_cursor(db: BaseDb) -> None:
    """Pages of two, following the cursor, list every session once, in order."""
    seen: list[str] = []
    after: Cursor | None = None
    while True:
        page = await search_sessions(db, SessionQuery(), limit=2, after=after)
        seen += ids(page)
        if page.next_cursor is None:
            break
        after = Cursor.decode(page.next_cursor.encode())
    assert seen == [s[0] for s in reversed(SESSIONS)]


async def test_cursor_text_is_checked() -> None:
    """A cursor that is not one of ours is a ValueError, not a query."""
    with pytest.raises(ValueError, match="not a page cursor"):
        Cursor.decode('{"x": 1}')


async def test_redis_marks_pending_snapshots_dirty(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """A session changed in Redis and not yet snapshotted is listed as dirty, then clean."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    try:
        # a run saves to Redis; the durable copy waits for the snapshotter
        agent = Agent(model=ScriptedModel(["ok"]), db=db, session_state={"a": 1})
        await agent.arun("hi", session_id="slack:T1:C1")
        page = await search_sessions(db, SessionQuery(status="dirty"))
        assert ids(page) == ["slack:T1:C1"]
        await db.aflush()
        page = await search_sessions(db, SessionQuery())
        assert [r.status for r in page.rows] == ["clean"]
    finally:
        await db.aclose()


async def test_status_filters(db: BaseDb) -> None:
    """Status filters: nothing is dirty or quarantined in a durable store; with Redis a
    parked session is listed as quarantined and left out of the clean ones."""
    if isinstance(db, RedisDb):
        record = await db.aload("slack:T1:C2")
        assert record is not None
        assert await db.dirty.aquarantine(record, "refused by the durable store")
        await db.aflush()  # the others reach the durable store
        page = await search_sessions(db, SessionQuery(status="quarantined"))
        assert ids(page) == ["slack:T1:C2"]
        assert page.rows[0].status == "quarantined"
    else:
        assert ids(await search_sessions(db, SessionQuery(status="quarantined"))) == []
    assert ids(await search_sessions(db, SessionQuery(status="dirty"))) == []
    clean = ids(await search_sessions(db, SessionQuery(status="clean")))
    assert ("slack:T1:C2" in clean) is not isinstance(db, RedisDb)
