"""``statebot state …`` driven through click's CliRunner on a real SQLite file, and on a
Redis + SQLite deployment exactly as the bots build it."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bots.cli.main import main
from core.agent import Agent
from core.db.codec import encode_delta as texts
from core.db.records import SessionMeta
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from tests.conftest import REDIS_URL, require_service

SESSION = "console:local:main:taskboard"


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL must not turn these SQLite tests into Redis ones."""
    monkeypatch.delenv("REDIS_URL", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite URL holding one session at version 2 with a secret in its state."""
    url = f"sqlite:///{tmp_path}/cli.db"

    async def fill() -> None:
        db = SqliteDb(db_url=url)
        meta = SessionMeta(owner_id="taskboard", user_id="console:local:me")
        await db.asave(SESSION, expected_version=0, changed=texts({"tasks": ["a"]}), meta=meta)
        await db.asave(
            SESSION, expected_version=1, changed=texts({"tasks": ["a", "b"], "api_token": "x"})
        )
        await db.aclose()

    asyncio.run(fill())
    return url


def _run(db_url: str, *args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["state", "--db-url", db_url, *args], input=stdin)
    return result.exit_code, result.output


def test_list_shows_sessions(db_url: str) -> None:
    """`state list` prints each session with its version and owner."""
    code, out = _run(db_url, "list")
    assert code == 0
    assert f"{SESSION}\tv2\tagent:taskboard\t2 keys" in out


def test_dump_redacts_unless_reveal(db_url: str) -> None:
    """`state dump` hides sensitive values; --reveal shows them."""
    code, out = _run(db_url, "dump", SESSION)
    assert code == 0
    assert json.loads(out)["state"] == {"tasks": ["a", "b"], "api_token": "***redacted***"}
    code, out = _run(db_url, "dump", SESSION, "--reveal")
    assert code == 0 and json.loads(out)["state"]["api_token"] == "x"


def test_history_and_restore(db_url: str) -> None:
    """`state history --json` lists versions newest first; `state restore` brings one back."""
    code, out = _run(db_url, "history", SESSION, "--json")
    assert code == 0 and [v["version"] for v in json.loads(out)] == [2, 1]
    code, out = _run(db_url, "restore", SESSION, "1")
    assert code == 0 and "now version 3" in out
    code, out = _run(db_url, "dump", SESSION)
    assert json.loads(out)["state"] == {"tasks": ["a"]}


def test_delete_asks_then_removes(db_url: str) -> None:
    """`state delete` asks for confirmation and removes the session on yes."""
    code, _ = _run(db_url, "delete", SESSION, stdin="n\n")
    assert code != 0
    code, out = _run(db_url, "delete", SESSION, "--yes")
    assert code == 0 and "deleted" in out
    assert "no sessions" in _run(db_url, "list")[1]


def test_export_then_import_into_a_new_database(db_url: str, tmp_path: Path) -> None:
    """`state export` then `state import` into an empty database gives the same dump."""
    dump_file = tmp_path / "export.jsonl"
    code, out = _run(db_url, "export", str(dump_file))
    assert code == 0 and "exported 1 session" in out
    other = f"sqlite:///{tmp_path}/other.db"
    code, out = _run(other, "import", str(dump_file))
    assert code == 0 and "imported 1 session" in out
    imported, original = (json.loads(_run(u, "dump", SESSION)[1]) for u in (other, db_url))
    # an export carries current state and meta; history stays with the source database
    imported.pop("recent_versions")
    original.pop("recent_versions")
    assert imported == original


def test_bad_import_file_fails_with_line_number_and_writes_nothing(tmp_path: Path) -> None:
    """A broken line makes `state import` exit non-zero naming the line; the db stays empty."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session_id": "s", "version": 1, "state": {}}\n{oops\n', encoding="utf-8")
    url = f"sqlite:///{tmp_path}/empty.db"
    code, out = _run(url, "import", str(bad))
    assert code == 2 and "line 2" in out  # bad input (bots/cli/errors.py)
    assert not (tmp_path / "empty.db").exists()  # validated before the store was opened


def test_unknown_session_is_a_clean_error(db_url: str) -> None:
    """Commands on a session that does not exist exit 2 (bad input) with a message, no
    traceback."""
    code, out = _run(db_url, "dump", "nope")
    assert code == 2 and "no session 'nope'" in out and "Traceback" not in out


def test_db_url_defaults_to_environment(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --db-url the store comes from STATEBOT_DB_URL."""
    monkeypatch.setenv("STATEBOT_DB_URL", db_url)
    result = CliRunner().invoke(main, ["state", "list"])
    assert result.exit_code == 0 and SESSION in result.output


# -- on a Redis deployment ----------------------------------------------------------
# The CLI builds its RedisDb with bots.app.build.build_store, as the bots do, so it uses the
# deployment's default key prefix. To keep that away from other tests' keys it runs
# on a Redis database of its own, emptied of statebot keys afterwards.
DEPLOYMENT_DB = 9


@pytest.fixture
async def deployment_redis() -> AsyncIterator[str]:
    """URL of a Redis database used only by these tests (statebot keys removed after)."""
    require_service("Redis", "127.0.0.1", 6379)
    url = f"{REDIS_URL.rsplit('/', 1)[0]}/{DEPLOYMENT_DB}"
    yield url
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    try:
        async for key in client.scan_iter(match="*statebot:*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Append an item."""
    session_state["items"].append(item)
    return f"added {item}"


@pytest.fixture
def deployment(deployment_redis: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(redis url, durable url) of one bot deployment."""
    yield deployment_redis, f"sqlite:///{tmp_path}/durable.db"


async def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    # in a thread: the CLI runs its own event loop, as it does from a terminal
    result = await asyncio.to_thread(CliRunner().invoke, main, ["state", *args], env=env)
    return result.exit_code, result.output


async def test_cli_delete_on_redis_is_seen_by_the_next_bot_run(
    deployment: tuple[str, str],
) -> None:
    """`state delete` with REDIS_URL removes the hot copy too: the next run starts fresh."""
    redis_url, durable_url = deployment
    session = f"slack:T1:C1:{uuid.uuid4().hex}"
    db = RedisDb(db_url=redis_url, snapshot_to=SqliteDb(db_url=durable_url))
    agent = Agent(db=db, session_state={"items": []}, tools=[add_item])
    await agent.arun_tool("add_item", {"item": "old"}, session_id=session)
    env = {"REDIS_URL": redis_url, "STATEBOT_DB_URL": durable_url}
    code, out = await _cli("delete", session, "--yes", env=env)
    assert code == 0 and f"deleted {session}" in out
    output = await agent.arun_tool("add_item", {"item": "new"}, session_id=session)
    assert output.session_state is not None and output.session_state["items"] == ["new"]
    await db.aclose()


async def test_cli_restore_on_redis_is_seen_by_the_next_bot_run(
    deployment: tuple[str, str],
) -> None:
    """`state restore --redis-url` saves through Redis: the next run continues from it."""
    redis_url, durable_url = deployment
    session = f"slack:T1:C1:{uuid.uuid4().hex}"
    db = RedisDb(db_url=redis_url, snapshot_to=SqliteDb(db_url=durable_url))
    agent = Agent(db=db, session_state={"items": []}, tools=[add_item])
    for item in ("one", "two", "three"):
        await agent.arun_tool("add_item", {"item": item}, session_id=session)
    args = ("--db-url", durable_url, "--redis-url", redis_url)
    code, out = await _cli(*args, "restore", session, "1")
    assert code == 0 and "now version 4" in out, out
    output = await agent.arun_tool("add_item", {"item": "after"}, session_id=session)
    assert output.session_state is not None
    assert output.session_state["items"] == ["one", "after"]
    await db.aclose()
    durable = SqliteDb(db_url=durable_url)
    record = await durable.aload(session)  # the restore reached the durable store too
    await durable.aclose()
    assert record is not None and record.version >= 4


def test_import_of_an_out_of_range_version_is_a_clean_message(tmp_path: Path) -> None:
    """A version no durable store can hold fails validation: exit 2, a message, nothing written."""
    good = tmp_path / "in.jsonl"
    good.write_text(
        json.dumps({"session_id": "s", "version": 2**70, "state": {}}) + "\n", encoding="utf-8"
    )
    url = f"sqlite:///{tmp_path}/x.db"
    code, out = _run(url, "import", str(good))
    assert code == 2 and "64-bit" in out and "Traceback" not in out
    assert not (tmp_path / "x.db").exists()  # validated before the store was opened


def test_health_of_a_durable_store_says_it_is_reachable(db_url: str) -> None:
    """`state health` on SQLite alone: reachable, no snapshot fields (nothing to snapshot)."""
    code, output = _run(db_url, "health")
    assert code == 0, output
    assert json.loads(output) == {"reachable": True}


def test_health_of_an_unreachable_store_exits_1() -> None:
    """`state health` on a PostgreSQL that is not there: a clear report and exit code 1."""
    code, output = _run("postgresql://postgres@127.0.0.1:1/none", "health")
    assert code == 1
    report = json.loads(output)
    assert report["reachable"] is False and "unavailable" in report["error"]


def test_store_options_work_after_the_subcommand(db_url: str) -> None:
    """`state list --db-url X` works as well as `state --db-url X list`."""
    result = CliRunner().invoke(main, ["state", "list", "--db-url", db_url])
    assert result.exit_code == 0, result.output
    assert SESSION in result.output


def test_read_commands_refuse_a_missing_sqlite_file(tmp_path: Path) -> None:
    """`state --db-url sqlite:///typo.db list` is an error and creates no typo.db."""
    typo = tmp_path / "typo.db"
    for command in (["list"], ["health"], ["dump", SESSION], ["history", SESSION]):
        code, out = _run(f"sqlite:///{typo}", *command)
        assert code == 2 and "no database file" in out and str(typo) in out, out
    assert not typo.exists()


def test_dump_and_history_show_iso_utc_timestamps(db_url: str) -> None:
    """Dumps, lists and history show timestamps as ISO 8601 UTC, not Unix floats."""
    iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
    dump = json.loads(_run(db_url, "dump", SESSION)[1])
    assert iso.match(dump["created_at"]) and iso.match(dump["updated_at"])
    assert all(iso.match(v["saved_at"]) for v in dump["recent_versions"])
    history = json.loads(_run(db_url, "history", SESSION, "--json")[1])
    assert all(iso.match(v["saved_at"]) for v in history)
    listed = _run(db_url, "list")[1]
    assert re.search(r"\tupdated \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", listed, re.MULTILINE)


def test_counts_use_correct_plurals(db_url: str, tmp_path: Path) -> None:
    """One session is "1 session", not "1 sessions"."""
    out_file = tmp_path / "one.jsonl"
    code, out = _run(db_url, "export", str(out_file))
    assert code == 0 and "exported 1 session\n" in out
    code, out = _run(f"sqlite:///{tmp_path}/fresh.db", "import", str(out_file))
    assert code == 0 and "imported 1 session\n" in out
