"""`statebot console` as a real process driven through piped stdin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

STATEBOT = Path(sys.executable).parent / "statebot"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    return env


def _console(db: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [str(STATEBOT), "console", "--agent", "taskboard", "--session", "t", "--db", str(db)]
    return subprocess.run(
        [*argv, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
        check=False,
    )


def test_taskboard_session_survives_a_restart(tmp_path: Path) -> None:
    """Tasks added in one console run are there after a restart; output is replies only."""
    db = tmp_path / "s.db"
    first = _console(
        db,
        '/add_task "Review Q2 roadmap" category=work\n/add "Ship it"\n/status 2 done\n'
        "what is on my board?\n/frobnicate\n/add Ship it\n",
    )
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "Added task #1: Review Q2 roadmap (work, open)."
    assert lines[1].startswith("Added task #2: Ship it")
    assert "done" in lines[2]
    assert lines[3].startswith("No model is configured: set OPENAI_API_KEY")
    assert lines[4].startswith("Unknown command 'frobnicate'")
    assert lines[5] == (  # unquoted: "it" binds to category, which the tool refuses
        "Unknown category 'it'. Choose one of: general, work, personal. "
        "If 'Ship it' is the title, put it in quotes: \"Ship it\". Nothing was changed."
    )
    assert "statebot console" not in first.stdout  # no banner or prompt when piped

    second = _console(db, "/list\n/state\n/quit\n/list\n")
    assert second.returncode == 0, second.stderr
    assert "#1 [open] Review Q2 roadmap (work)" in second.stdout
    assert "#2 [done] Ship it" in second.stdout
    assert '"next_task_id": 3' in second.stdout
    assert second.stdout.count("Tasks (2)") == 1  # nothing after /quit ran


def test_unknown_agent_exits_with_usage_error(tmp_path: Path) -> None:
    """`--agent nope` fails fast, naming the agents, without touching stdin."""
    result = _console(tmp_path / "s.db", "", "--agent", "nope")
    assert result.returncode == 2
    assert "unknown agent 'nope'" in result.stderr and "taskboard" in result.stderr
