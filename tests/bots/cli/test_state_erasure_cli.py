"""``statebot state erase | expire | export --user`` through click's CliRunner on a real
SQLite file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from bots.cli.main import main
from core.db.records import SessionRecord
from core.db.sqlite import SqliteDb
from tests.db.erasure_fixtures import ANA, BOB, OWN, SHARED, fill, traces


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL or retention settings must not leak into these tests."""
    for name in ("REDIS_URL", "STATEBOT_RETENTION_DM_DAYS", "STATEBOT_RETENTION_THREAD_DAYS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("STATEBOT_RETENTION_CHANNEL_DAYS", raising=False)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A SQLite file with Ana's DM, a thread she shares with Bob, memories, reminders."""
    url = f"sqlite:///{tmp_path}/cli.db"

    async def setup() -> None:
        db = SqliteDb(db_url=url)
        await fill(db)
        await db.aclose()

    asyncio.run(setup())
    return url


def _run(db_url: str, *args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["state", "--db-url", db_url, *args], input=stdin)
    return result.exit_code, result.output


def _traces(db_url: str, needle: str) -> list[str]:
    async def scan() -> list[str]:
        db = SqliteDb(db_url=db_url)
        try:
            return await traces(db, needle)
        finally:
            await db.aclose()

    return asyncio.run(scan())


def test_erase_asks_first_and_no_changes_nothing(db_url: str) -> None:
    """Without --yes the command asks; answering no erases nothing."""
    code, out = _run(db_url, "erase", "--user", ANA, stdin="n\n")
    assert code == 1 and "Aborted" in out
    assert _traces(db_url, ANA)


def test_erase_with_yes_prints_the_report_and_leaves_no_trace(db_url: str) -> None:
    """--yes erases at once; the printed report names what was deleted and scrubbed."""
    code, out = _run(db_url, "erase", "--user", ANA, "--yes")
    assert code == 0, out
    report = json.loads(out[: out.rindex("}") + 1])
    assert report["complete"] is True
    assert report["sessions_deleted"] == [OWN] and report["sessions_scrubbed"] == [SHARED]
    assert report["memories_deleted"] == 2 and report["schedules_deleted"] == 2
    assert _traces(db_url, ANA) == []
    assert _traces(db_url, BOB)  # the other user's data stays


def test_erase_without_a_user_is_a_usage_error(db_url: str) -> None:
    """--user is required."""
    code, out = _run(db_url, "erase", "--yes")
    assert code == 2 and "--user" in out


def test_export_user_writes_their_data_as_json(db_url: str, tmp_path: Path) -> None:
    """export --user U --file F writes the user's data, not the other user's."""
    target = tmp_path / "ana.json"
    code, out = _run(db_url, "export", "--user", ANA, "--file", str(target))
    assert code == 0, out
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["user_id"] == ANA and [s["session_id"] for s in data["sessions"]] == [OWN]
    assert BOB not in target.read_text(encoding="utf-8")
    assert "1 session" in out and "2 memories" in out


def test_export_user_to_stdout(db_url: str) -> None:
    """Without a file the per-user export goes to stdout."""
    result = CliRunner().invoke(main, ["state", "--db-url", db_url, "export", "--user", ANA])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["user_id"] == ANA


def test_export_without_user_is_still_the_jsonl_export(db_url: str, tmp_path: Path) -> None:
    """The whole-store JSON Lines export keeps working (FILE argument)."""
    target = tmp_path / "all.jsonl"
    code, out = _run(db_url, "export", str(target))
    assert code == 0 and "exported 2 sessions" in out
    lines = target.read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["session_id"] for line in lines) == sorted([OWN, SHARED])


def _age(db_url: str, session_id: str) -> None:
    """Make a session look untouched since 1970 (no clock to wait for)."""
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE sessions SET updated_at = 0 WHERE session_id = :s"), {"s": session_id}
        )
    engine.dispose()


def test_expire_dry_run_then_for_real(db_url: str) -> None:
    """expire --dry-run names the idle DM and keeps it; expire then deletes it."""
    _age(db_url, OWN)
    code, out = _run(db_url, "expire", "--dm-days", "30", "--dry-run")
    assert code == 0, out
    assert json.loads(out[: out.rindex("}") + 1])["sessions_expired"] == [OWN]
    assert "would expire 1 session" in out
    code, out = _run(db_url, "list")
    assert OWN in out

    code, out = _run(db_url, "expire", "--dm-days", "30")
    assert code == 0 and "expired 1 session" in out
    code, out = _run(db_url, "list")
    assert OWN not in out and SHARED in out


def test_expire_reads_the_settings(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without day options the STATEBOT_RETENTION_*_DAYS settings decide."""
    _age(db_url, OWN)
    monkeypatch.setenv("STATEBOT_RETENTION_DM_DAYS", "30")
    code, out = _run(db_url, "expire")
    assert code == 0 and "expired 1 session" in out


def test_expire_without_any_retention_is_a_usage_error(db_url: str) -> None:
    """Nothing configured: a clear message, nothing deleted."""
    code, out = _run(db_url, "expire")
    assert code == 2 and "STATEBOT_RETENTION_DM_DAYS" in out


def _add_user_elsewhere(db_url: str) -> None:
    """A session whose last user has Ana's platform id in another workspace."""

    async def add() -> None:
        db = SqliteDb(db_url=db_url)
        try:
            record = SessionRecord.from_state("slack:T2:DX", {"a": 1}, 1, user_id="slack:T2:UANA")
            await db.aupsert_snapshot(record)
        finally:
            await db.aclose()

    asyncio.run(add())


@pytest.mark.parametrize("command", ["erase", "export"])
def test_a_bare_user_id_is_refused_with_the_keys_it_could_mean(
    db_url: str, tmp_path: Path, command: str
) -> None:
    """``--user UANA`` (not platform:workspace:user): exit 2, one line naming the full
    keys found in the store; nothing is erased or written."""
    _add_user_elsewhere(db_url)
    target = tmp_path / "ana.json"
    extra = ["--yes"] if command == "erase" else ["--file", str(target)]
    code, out = _run(db_url, command, "--user", "UANA", *extra)
    assert code == 2, out
    assert len(out.strip().splitlines()) == 1, out
    assert "platform:workspace:user" in out
    assert "slack:T1:UANA" in out and "slack:T2:UANA" in out and "erased" not in out
    assert _traces(db_url, ANA) and not target.exists()


@pytest.mark.parametrize("command", ["erase", "export"])
def test_a_bare_user_id_nobody_has_says_no_user_matches(db_url: str, command: str) -> None:
    """A bare id that matches no stored user is refused too, and the line says so."""
    extra = ["--yes"] if command == "erase" else []
    code, out = _run(db_url, command, "--user", "U0456", *extra)
    assert code == 2, out
    assert len(out.strip().splitlines()) == 1, out
    assert "no stored user matches 'U0456'" in out


def test_a_workspace_and_user_without_platform_is_refused(db_url: str) -> None:
    """``T1:UANA`` is not a full key either; it could mean slack:T1:UANA."""
    code, out = _run(db_url, "erase", "--user", "T1:UANA", "--yes")
    assert code == 2 and "slack:T1:UANA" in out and "slack:T2:UANA" not in out, out
    assert _traces(db_url, ANA)
