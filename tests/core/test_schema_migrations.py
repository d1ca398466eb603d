"""Schema versions: lazy migration on load, eager migration of every session, refusals."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from core.agent import Agent
from core.db.base import BaseDb
from core.exceptions import SchemaVersionError, StateMigrationError
from core.governance.migrate import migrate_session, migrate_sessions
from core.run.history import SessionData
from core.testing import ScriptedModel
from tests.core.schema_stores import db_fixture, services_fixture

__all__ = ["db_fixture", "services_fixture"]  # the fixtures, imported for pytest


class V1(BaseModel):
    items: list[str]


class Item(BaseModel):
    name: str
    qty: int


class V2(BaseModel):
    items: list[Item]
    count: int


def to_v2(state: dict[str, Any]) -> dict[str, Any]:
    """Version 2: items become records with a quantity, and a count is kept."""
    items = [{"name": name, "qty": 1} for name in state.pop("items", [])]
    return {**state, "items": items, "count": len(items)}


def add_item(session_state: dict[str, Any], name: str) -> str:
    """Add an item.

    Args:
        name: The item.
    """
    session_state["items"].append(name)
    return "added"


def v1_agent(db: BaseDb) -> Agent:
    return Agent(
        id="shop", db=db, tools=[add_item], session_state={"items": []}, session_state_schema=V1
    )


def v2_agent(db: BaseDb, model: ScriptedModel | None = None, **kw: Any) -> Agent:
    return Agent(
        id="shop",
        db=db,
        model=model,
        session_state={"items": [], "count": 0},
        session_state_schema=V2,
        session_state_schema_version=2,
        session_state_migrations={2: to_v2},
        **kw,
    )


async def stored(db: BaseDb, session_id: str) -> tuple[dict[str, Any], int | None, int]:
    """(state, schema version, store version) of a stored session."""
    record = await db.aload(session_id)
    assert record is not None
    return record.state, SessionData.decode(record.data).schema_version, record.version


async def seed_v1(db: BaseDb, *session_ids: str) -> None:
    """Sessions saved by the version-1 code."""
    old = v1_agent(db)
    for session_id in session_ids:
        await old.arun_tool("add_item", {"name": "milk"}, session_id=session_id)
        await old.arun_tool("add_item", {"name": "eggs"}, session_id=session_id)


async def test_new_sessions_record_the_code_version(db: BaseDb) -> None:
    """A session created by typed code is saved with its schema version."""
    await seed_v1(db, "s")
    assert (await stored(db, "s"))[1] == 1


async def test_lazy_migration_on_load_saves_the_migrated_state_and_version(db: BaseDb) -> None:
    """The next run of an old session migrates it under the lease; the run's save stores it."""
    await seed_v1(db, "s")
    model = ScriptedModel(["hello"])
    out = await v2_agent(db, model).arun("hi", session_id="s")
    expected = {"items": [{"name": "milk", "qty": 1}, {"name": "eggs", "qty": 1}], "count": 2}
    assert out.session_state == expected
    state, schema_version, _ = await stored(db, "s")
    assert (state, schema_version) == (expected, 2)


async def test_unversioned_sessions_count_as_version_1(db: BaseDb) -> None:
    """A session saved before any schema existed is migrated from version 1."""
    await Agent(id="shop", db=db, tools=[add_item], session_state={"items": []}).arun_tool(
        "add_item", {"name": "tea"}, session_id="s"
    )
    assert (await stored(db, "s"))[1] is None
    state = await v2_agent(db).aupdate_session_state({}, session_id="s")
    assert state == {"items": [{"name": "tea", "qty": 1}], "count": 1}
    assert (await stored(db, "s"))[1] == 2


async def test_a_future_version_refuses_the_run_and_changes_nothing(db: BaseDb) -> None:
    """Old code meeting a newer stored version refuses with a clear error; nothing is written."""
    await seed_v1(db, "s")
    await v2_agent(db).aupdate_session_state({}, session_id="s")  # now version 2
    before = await stored(db, "s")
    model = ScriptedModel(["never"])
    old = Agent(id="shop", db=db, model=model, session_state={"items": []}, session_state_schema=V1)
    with pytest.raises(SchemaVersionError, match="schema version 2, newer than this code's V1"):
        await old.arun("hi", session_id="s")
    assert model.requests == []
    assert await stored(db, "s") == before


async def test_a_failing_migration_refuses_the_run_and_changes_nothing(db: BaseDb) -> None:
    """A migration that raises refuses the run, naming the step; the stored state is untouched."""
    await seed_v1(db, "s")
    before = await stored(db, "s")

    def broken(state: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("price")

    agent = Agent(
        id="shop",
        db=db,
        model=ScriptedModel(["never"]),
        session_state={"items": [], "count": 0},
        session_state_schema=V2,
        session_state_schema_version=2,
        session_state_migrations={2: broken},
    )
    with pytest.raises(StateMigrationError, match=r"migration to version 2 failed.*KeyError"):
        await agent.arun("hi", session_id="s")
    assert await stored(db, "s") == before


async def test_a_migration_whose_result_does_not_fit_refuses(db: BaseDb) -> None:
    """A migrated state that does not fit the new schema is refused, not stored."""
    await seed_v1(db, "s")
    before = await stored(db, "s")
    agent = Agent(
        id="shop",
        db=db,
        session_state={"items": [], "count": 0},
        session_state_schema=V2,
        session_state_schema_version=2,
        session_state_migrations={2: lambda state: state},  # items stay strings
    )
    with pytest.raises(StateMigrationError, match=r"session_state\['items'\]\[0\]"):
        await agent.aupdate_session_state({}, session_id="s")
    assert await stored(db, "s") == before


async def test_eager_migration_gives_the_same_state_as_lazy(db: BaseDb) -> None:
    """migrate_sessions over a copy of the sessions stores exactly what lazy loading stores."""
    await seed_v1(db, "lazy", "eager")
    await v2_agent(db, ScriptedModel(["ok"])).arun("hi", session_id="lazy")
    results = {r.session_id: r for r in await migrate_sessions(v2_agent(db))}
    assert results["eager"].written and results["eager"].from_version == 1
    assert results["lazy"].from_version is None and not results["lazy"].written
    lazy, eager = await stored(db, "lazy"), await stored(db, "eager")
    assert lazy[:2] == eager[:2]
    assert eager[1] == 2


async def test_dry_run_shows_the_patch_and_writes_nothing(db: BaseDb) -> None:
    """A dry run returns the RFC 6902 change and leaves the store exactly as it was."""
    await seed_v1(db, "s")
    before = await stored(db, "s")
    result = await migrate_session(v2_agent(db), "s", dry_run=True)
    assert not result.written and result.from_version == 1
    ops = {(op["op"], op["path"]) for op in result.patch}
    assert ("add", "/count") in ops
    assert await stored(db, "s") == before
