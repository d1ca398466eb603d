"""``statebot state migrate``: eager migration of an agent's sessions, dry run, refusals."""

from __future__ import annotations

import asyncio
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bots.cli.main import main
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.run.history import SessionData

APP = """
from typing import Any

from pydantic import BaseModel

from core.agent import Agent
from core.db.sqlite import SqliteDb


class Item(BaseModel):
    name: str
    qty: int


class V2(BaseModel):
    items: list[Item]
    count: int


def to_v2(state: dict[str, Any]) -> dict[str, Any]:
    items = [{"name": n, "qty": 1} for n in state.pop("items", [])]
    return {**state, "items": items, "count": len(items)}


def agents() -> dict[str, Agent]:
    return {
        "shop": Agent(
            id="shop",
            db=SqliteDb(db_file=DB_FILE),
            session_state={"items": [], "count": 0},
            session_state_schema=V2,
            session_state_schema_version=2,
            session_state_migrations={2: to_v2},
        )
    }
"""


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    """(--app spec, database file): a v2 agent in a module of its own, on a SQLite file."""
    monkeypatch.chdir(tmp_path)
    for name in ("REDIS_URL", "STATEBOT_DB_URL"):
        monkeypatch.delenv(name, raising=False)
    db_file = tmp_path / "bot.db"
    module = f"migrate_app_{uuid.uuid4().hex[:8]}"
    body = textwrap.dedent(APP) + f"\nDB_FILE = {str(db_file)!r}\n"
    (tmp_path / f"{module}.py").write_text(body, encoding="utf-8")
    asyncio.run(seed(db_file, "a", "b"))
    return f"{module}:agents", db_file


async def seed(db_file: Path, *session_ids: str) -> None:
    """Sessions saved by code that had no schema (unversioned: version 1)."""
    db = SqliteDb(db_file=db_file)
    old = Agent(id="shop", db=db, session_state={"items": []})
    for session_id in session_ids:
        await old.aupdate_session_state({"items": ["milk", "eggs"]}, session_id=session_id)
    await db.aclose()


def stored(db_file: Path) -> dict[str, tuple[dict[str, Any], int | None]]:
    """session id -> (state, schema version) as the file holds them."""

    async def read() -> dict[str, tuple[dict[str, Any], int | None]]:
        db = SqliteDb(db_file=db_file)
        try:
            records = await db.alist_sessions(limit=100)
            return {
                r.session_id: (r.state, SessionData.decode(r.data).schema_version) for r in records
            }
        finally:
            await db.aclose()

    return asyncio.run(read())


def test_dry_run_shows_each_change_and_writes_nothing(app: tuple[str, Path]) -> None:
    """--dry-run prints the patch per session and leaves every session as it was."""
    spec, db_file = app
    before = stored(db_file)
    result = CliRunner().invoke(
        main, ["state", "migrate", "--agent", "SHOP", "--app", spec, "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "a: would migrate v1 -> v2" in result.output
    assert "    add /count: 2" in result.output
    assert '"qty": 1' in result.output
    assert "2 sessions would be migrated, 0 already current, 0 failed (dry run" in result.output
    assert stored(db_file) == before


def test_migrate_writes_what_the_next_run_would(app: tuple[str, Path]) -> None:
    """Eager migration of 'b' stores exactly what lazy migration of 'a' on a run stores."""
    spec, db_file = app

    async def lazy() -> None:
        from importlib import import_module

        agent = import_module(spec.split(":")[0]).agents()["shop"]
        await agent.aupdate_session_state({}, session_id="a")  # a run path: migrates lazily
        await agent.db.aclose()

    import sys

    sys.path.insert(0, str(db_file.parent))
    try:
        asyncio.run(lazy())
    finally:
        sys.path.remove(str(db_file.parent))
    result = CliRunner().invoke(main, ["state", "migrate", "--agent", "shop", "--app", spec])
    assert result.exit_code == 0, result.output
    assert "b: migrated v1 -> v2" in result.output
    assert "1 session migrated, 1 already current, 0 failed" in result.output
    after = stored(db_file)
    assert after["a"] == after["b"]
    assert after["b"] == (
        {"items": [{"name": "milk", "qty": 1}, {"name": "eggs", "qty": 1}], "count": 2},
        2,
    )
    again = CliRunner().invoke(main, ["state", "migrate", "--agent", "shop", "--app", spec])
    assert "0 sessions migrated, 2 already current" in again.output


def test_a_session_newer_than_the_code_is_named_and_left_alone(app: tuple[str, Path]) -> None:
    """A session at a future version fails with the reason, exit 1; the others still migrate."""
    spec, db_file = app

    async def future() -> None:
        db = SqliteDb(db_file=db_file)

        from pydantic import BaseModel

        class Any9(BaseModel):
            items: list[Any]

        newer = Agent(
            id="shop",
            db=db,
            session_state={"items": []},
            session_state_schema=Any9,
            session_state_schema_version=9,
            session_state_migrations={n: (lambda s: s) for n in range(2, 10)},
        )
        await newer.aupdate_session_state({}, session_id="a")
        await db.aclose()

    asyncio.run(future())
    before = stored(db_file)["a"]
    result = CliRunner().invoke(main, ["state", "migrate", "--agent", "shop", "--app", spec])
    assert result.exit_code == 1
    assert "a: NOT migrated: session 'a' holds state of schema version 9" in result.output
    assert "b: migrated v1 -> v2" in result.output
    assert stored(db_file)["a"] == before


def test_unknown_agent_lists_the_agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--agent naming nothing is a usage error that lists the catalog's agents."""
    monkeypatch.chdir(tmp_path)
    asyncio.run(seed(tmp_path / "x.db", "s"))
    db_url = f"sqlite:///{tmp_path / 'x.db'}"
    result = CliRunner().invoke(
        main, ["state", "migrate", "--agent", "nope", "--db-url", db_url], catch_exceptions=False
    )
    assert result.exit_code != 0
    assert "no agent 'nope'" in result.output and "taskboard" in result.output


def test_catalog_agent_sessions_are_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ready taskboard on the deployment store: its sessions are at version 1, left alone."""
    monkeypatch.chdir(tmp_path)
    from tools.taskboard import create_agent

    async def board() -> None:
        db = SqliteDb(db_file=tmp_path / "x.db")
        await create_agent(db=db).arun_tool("add_task", {"title": "Ship"}, session_id="s")
        await db.aclose()

    asyncio.run(board())
    db_url = f"sqlite:///{tmp_path / 'x.db'}"
    result = CliRunner().invoke(
        main, ["state", "migrate", "--agent", "taskboard", "--db-url", db_url]
    )
    assert result.exit_code == 0, result.output
    assert "0 sessions migrated, 1 already current, 0 failed" in result.output
