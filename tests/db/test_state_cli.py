"""``statebot state …`` driven through click's CliRunner on a real SQLite file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.cli import main
from core.db.base import SessionMeta
from core.db.sqlite import SqliteDb

SESSION = "console:local:main:taskboard"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite URL holding one session at version 2 with a secret in its state."""
    url = f"sqlite:///{tmp_path}/cli.db"

    async def fill() -> None:
        db = SqliteDb(db_url=url)
        meta = SessionMeta(owner_id="taskboard", user_id="console:local:me")
        await db.asave(SESSION, expected_version=0, changed={"tasks": ["a"]}, meta=meta)
        await db.asave(SESSION, expected_version=1, changed={"tasks": ["a", "b"], "api_token": "x"})
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
    """`state history` lists versions newest first; `state restore` brings one back."""
    code, out = _run(db_url, "history", SESSION)
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
    assert code == 0 and "exported 1 sessions" in out
    other = f"sqlite:///{tmp_path}/other.db"
    code, out = _run(other, "import", str(dump_file))
    assert code == 0 and "imported 1 sessions" in out
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
    assert code == 1 and "line 2" in out
    assert "no sessions" in _run(url, "list")[1]


def test_unknown_session_is_a_clean_error(db_url: str) -> None:
    """Commands on a session that does not exist exit 1 with a message, no traceback."""
    code, out = _run(db_url, "dump", "nope")
    assert code == 1 and "no session 'nope'" in out and "Traceback" not in out


def test_db_url_defaults_to_environment(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --db-url the store comes from STATEBOT_DB_URL."""
    monkeypatch.setenv("STATEBOT_DB_URL", db_url)
    result = CliRunner().invoke(main, ["state", "list"])
    assert result.exit_code == 0 and SESSION in result.output
