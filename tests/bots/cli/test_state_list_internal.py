"""`statebot state list` shows conversations; the agents' own bookkeeping sessions
(a user's task index) only with --all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.cli.main import main

STATEBOT = Path(sys.executable).parent / "statebot"


@pytest.fixture(autouse=True)
def no_redis_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's REDIS_URL or log settings must not leak into these tests."""
    for name in ("REDIS_URL", "STATEBOT_LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)


def test_task_index_is_hidden_unless_all(tmp_path: Path) -> None:
    """A task added in the real console leaves its board and the user's index; the
    list shows the board, says one internal session is hidden, and --all shows it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    db = tmp_path / "s.db"
    added = subprocess.run(
        [str(STATEBOT), "console", "--agent", "taskboard", "--session", "t", "--db", str(db)],
        input='/add "Ship it"\n',
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert added.returncode == 0 and added.stdout.startswith("Added task #1"), added.stderr
    url = f"sqlite:///{db}"

    listed = CliRunner().invoke(main, ["state", "--db-url", url, "list"])
    assert listed.exit_code == 0, listed.output
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["console:local:t"]
    assert "(1 internal session not shown; --all shows them)" in listed.stderr

    every = CliRunner().invoke(main, ["state", "--db-url", url, "list", "--all"])
    ids = [line.split("\t")[0] for line in every.stdout.splitlines()]
    assert sorted(ids)[0] == "console:local:t" and ids[1:] != []
    assert any(i.startswith("taskboard-index:") for i in ids) and "not shown" not in every.stderr


def test_limit_counts_conversations_not_internal_sessions(tmp_path: Path) -> None:
    """--limit 1 still finds the one conversation behind newer internal sessions."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    db = tmp_path / "s.db"
    subprocess.run(
        [str(STATEBOT), "console", "--agent", "taskboard", "--session", "t", "--db", str(db)],
        input='/add "Ship it"\n',
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    listed = CliRunner().invoke(
        main, ["state", "--db-url", f"sqlite:///{db}", "list", "--limit", "1"]
    )
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["console:local:t"]
