"""``statebot state import`` of a line without timestamps keeps the session through
``state expire`` (it is stored at the import time, not 1970)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.cli.main import main
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
