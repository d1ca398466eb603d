"""Agno's async stores (AsyncSqliteDb, AsyncPostgresDb) and Agno's store arguments.

Agno code builds ``AsyncSqliteDb(session_table=..., db_file=...)`` and
``AsyncPostgresDb(db_url=..., db_schema=...)``, awaits ``db._create_all_tables()``
and runs agents on them; runs keep the same guarantees (leases, versions) as on the
sync stores.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from core.agent import Agent
from core.db.base import BaseDb
from core.db.postgres import AsyncPostgresDb, PostgresDb
from core.db.postgres.async_postgres import AsyncPostgresDb as AsyncPostgresAtPath
from core.db.sqlite import AsyncSqliteDb, SqliteDb
from core.db.sqlite.async_sqlite import AsyncSqliteDb as AsyncSqliteAtPath
from core.run import RunContext
from core.team import Team
from core.testing import ScriptedModel, tool_call
from core.workflow import Step, StepInput, Workflow


def add_item(run_context: RunContext, item: str) -> str:
    """Add an item to the shopping list."""
    assert run_context.session_state is not None
    run_context.session_state["items"] = [*run_context.session_state.get("items", []), item]
    return f"added {item}"


def _agent(db: BaseDb, item: str) -> Agent:
    model = ScriptedModel([tool_call("add_item", item=item), f"added {item}"])
    return Agent(model=model, db=db, tools=[add_item], session_state={"items": []})


def _sqlite(tmp_path: Path) -> Callable[[], BaseDb]:
    return lambda: AsyncSqliteDb(session_table="sessions_async", db_file=str(tmp_path / "a.db"))


def _postgres(url: str, schema: str) -> Callable[[], BaseDb]:
    async_url = url.replace("postgresql+psycopg://", "postgresql+psycopg_async://")
    return lambda: AsyncPostgresDb(db_url=async_url, db_schema=schema, session_table="s_async")


@pytest.fixture(params=["sqlite", "postgres"])
def make_async_db(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], BaseDb]:
    """A factory of async stores sharing one database (each call: a new instance)."""
    if request.param == "sqlite":
        return _sqlite(tmp_path)
    url, schema = request.getfixturevalue("postgres_schema")
    return _postgres(url, schema)


def test_async_stores_live_at_agnos_paths() -> None:
    """The async classes are importable from the package and from their modules."""
    assert AsyncSqliteDb is AsyncSqliteAtPath
    assert AsyncPostgresDb is AsyncPostgresAtPath


async def test_create_all_tables_names_them_after_session_table(tmp_path: Path) -> None:
    """``await db._create_all_tables()`` creates the tables up front, named after
    ``session_table``."""
    db = AsyncSqliteDb(session_table="sessions_ab12", db_file=str(tmp_path / "t.db"))
    await db._create_all_tables()
    with sqlite3.connect(tmp_path / "t.db") as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"sessions_ab12", "sessions_ab12_history", "sessions_ab12_memories"} <= names
    await db.aclose()


async def test_agent_state_persists_across_async_store_instances(
    make_async_db: Callable[[], BaseDb],
) -> None:
    """A run on one async store instance is read back by an agent on another."""
    first, second = make_async_db(), make_async_db()
    await _agent(first, "milk").arun("add milk", session_id="s1", user_id="u1")
    reader = Agent(model=ScriptedModel(), db=second)
    assert reader.get_session_state(session_id="s1") == {"items": ["milk"]}
    record = await second.aload("s1")
    assert record is not None and record.version >= 1
    await first.aclose()
    await second.aclose()


async def test_concurrent_runs_on_async_stores_lose_no_update(
    make_async_db: Callable[[], BaseDb],
) -> None:
    """Runs of one session through different async store instances are serialized by
    the store's lease: every item is kept."""
    dbs = [make_async_db() for _ in range(4)]
    items = ["milk", "eggs", "bread", "tea"]
    await asyncio.gather(
        *(
            _agent(db, item).arun(f"add {item}", session_id="shared")
            for db, item in zip(dbs, items, strict=True)
        )
    )
    state = Agent(model=ScriptedModel(), db=dbs[0]).get_session_state(session_id="shared")
    assert sorted(state["items"]) == sorted(items)
    for db in dbs:
        await db.aclose()


async def test_teams_and_workflows_run_on_async_stores(
    make_async_db: Callable[[], BaseDb],
) -> None:
    """A team's and a workflow's state is stored on the async stores and read back."""
    db = make_async_db()
    member = Agent(name="helper", model=ScriptedModel())
    team_model = ScriptedModel([tool_call("add_item", item="tea"), "added tea"])
    team = Team(members=[member], model=team_model, db=db, tools=[add_item])
    await team.arun("add tea", session_id="team-s", user_id="u1")

    def count(step_input: StepInput, session_state: dict[str, Any]) -> str:
        session_state["visits"] = session_state.get("visits", 0) + 1
        return "counted"

    flow = Workflow(name="flow", db=db, steps=[Step(name="count", executor=count)])
    await flow.arun("go", session_id="flow-s")
    await flow.arun("go", session_id="flow-s")

    reader = make_async_db()
    team_record, flow_record = await reader.aload("team-s"), await reader.aload("flow-s")
    assert team_record is not None and team_record.state == {"items": ["tea"]}
    assert flow_record is not None and flow_record.state == {"visits": 2}
    assert flow_record.version >= 2
    await db.aclose()
    await reader.aclose()


def test_sync_run_works_on_an_async_store(tmp_path: Path) -> None:
    """``agent.run`` (sync) on an AsyncSqliteDb stores like ``arun``."""
    db = _sqlite(tmp_path)()
    agent = _agent(db, "milk")
    agent.run("add milk", session_id="s2")
    assert agent.get_session_state(session_id="s2") == {"items": ["milk"]}


async def test_postgres_db_schema_puts_tables_in_that_schema(
    postgres_schema: tuple[str, str],
) -> None:
    """``PostgresDb(db_url=..., db_schema=..., session_table=...)``: Agno's names honoured."""
    url, schema = postgres_schema
    db = PostgresDb(db_url=url, db_schema=schema, session_table="agno_sessions")
    await db.acall(lambda: None)  # acall migrates the schema first
    engine = sa.create_engine(url)
    try:
        tables = set(sa.inspect(engine).get_table_names(schema=schema))
    finally:
        engine.dispose()
    assert {"agno_sessions", "agno_sessions_history"} <= tables
    await db.aclose()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"memory_table": "m"}, "SqliteDb does not take memory_table=: the tables are named"),
        ({"db_engine": object()}, "SqliteDb does not take db_engine=: the store builds its own"),
        ({"eval_table": "e"}, "SqliteDb does not take eval_table="),
    ],
)
def test_sqlite_refuses_agno_arguments_it_cannot_honour(
    tmp_path: Path, kwargs: dict[str, Any], message: str
) -> None:
    """Agno arguments without a meaning here are refused, never silently ignored."""
    with pytest.raises(TypeError, match=message):
        SqliteDb(db_file=tmp_path / "x.db", **kwargs)
    assert not (tmp_path / "x.db").exists()


def test_postgres_refuses_conflicting_schema_and_engine() -> None:
    """schema and db_schema disagreeing, or a ready engine, are refused clearly."""
    url = "postgresql://postgres@127.0.0.1:5432/test"
    with pytest.raises(TypeError, match="give schema or db_schema, not both"):
        PostgresDb(db_url=url, schema="a", db_schema="b")
    with pytest.raises(TypeError, match="AsyncPostgresDb does not take db_engine="):
        AsyncPostgresDb(db_engine=object())
    with pytest.raises(TypeError, match="needs db_url="):
        PostgresDb()


def test_store_id_is_agnos_id_when_given(tmp_path: Path) -> None:
    """``id=`` names the store (Agno's database id); without it a stable name is derived."""
    assert SqliteDb(db_file=tmp_path / "x.db", id="my-db").id == "my-db"
    assert SqliteDb(db_file=tmp_path / "x.db").id == f"sqlite:{tmp_path / 'x.db'}"
