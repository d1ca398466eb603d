"""``statebot state import`` of a line without timestamps keeps the session through
``state expire`` (it is stored at the import time, not 1970)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.cli.main import main
from core.db.codec import encode_delta
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb

_BASE = {"session_id": "slack:T1:D1", "version": 2, "state": {"a": 1}}


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL must not leak into these tests."""
    monkeypatch.delenv("REDIS_URL", raising=False)


def test_cli_import_without_timestamps_keeps_the_session(tmp_path: Path) -> None:
    """``statebot state import`` of a line without timestamps, then ``state expire``."""
    url = f"sqlite:///{tmp_path}/cli.db"
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(_BASE) + "\n", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(main, ["state", "--db-url", url, "import", str(source)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        main, ["state", "--db-url", url, "expire", "--dm-days", "1", "--channel-days", "1"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["sessions_expired"] == []

    async def load() -> object:
        db = SqliteDb(db_url=url)
        try:
            return await db.aload("slack:T1:D1")
        finally:
            await db.aclose()

    assert asyncio.run(load()) is not None


# ``statebot`` with the Redis key prefix of this test (state commands use the bots' one)
_STATEBOT = (
    "import functools, sys\n"
    "import bots.app.build as build\n"
    "build.build_store = functools.partial(build.build_store, key_prefix=sys.argv[1])\n"
    "from bots.cli.main import main\n"
    "main(sys.argv[2:], prog_name='statebot')\n"
)


def _statebot(key_prefix: str, redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url, "STATEBOT_LOG_LEVEL": "DEBUG"}
    env.pop("STATEBOT_LOG_FORMAT", None)
    return subprocess.run(
        [sys.executable, "-c", _STATEBOT, key_prefix, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


async def _seed(redis_url: str, key_prefix: str, db_url: str) -> None:
    """Two sessions: one already snapshotted to the durable store, one in Redis only
    (the command's store snapshots it when it closes, and logs that pass)."""
    durable = SqliteDb(db_url=db_url)
    for n, snapshot_to in enumerate((durable, None), start=1):
        store = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=snapshot_to)
        try:
            await store.asave(f"slack:T1:C{n}", expected_version=0, changed=encode_delta({"n": n}))
        finally:
            await store.aclose()


@pytest.mark.slow
def test_export_to_stdout_from_redis_is_json_lines_only(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """``statebot state export -`` on a Redis deployment: logs (the snapshot pass of the
    store's close, at DEBUG) go to stderr; stdout parses as JSON Lines and imports back."""
    db_url = f"sqlite:///{tmp_path}/durable.db"
    asyncio.run(_seed(redis_url, key_prefix, db_url))
    done = _statebot(key_prefix, redis_url, "state", "--db-url", db_url, "export", "-")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["session_id"] for line in lines] == ["slack:T1:C1", "slack:T1:C2"]
    assert "exported 2 sessions" in done.stderr and "snapshot pass" in done.stderr
    backup = tmp_path / "backup.jsonl"
    backup.write_text(done.stdout, encoding="utf-8")
    result = CliRunner().invoke(
        main, ["state", "--db-url", f"sqlite:///{tmp_path}/restored.db", "import", str(backup)]
    )
    assert result.exit_code == 0 and "imported 2 sessions" in result.output, result.output
