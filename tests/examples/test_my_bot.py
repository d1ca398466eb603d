"""examples/my_bot.py runs as a user would run it: through --app and through serve()."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATEBOT = Path(sys.executable).parent / "statebot"
SCRIPT = '/add_note "Ship on Friday"\n/list_notes\n/sessions\n'


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    env["PYTHONPATH"] = str(ROOT)  # the example is imported as examples.my_bot
    return env


def _run(argv: list[str], cwd: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=_env(), cwd=cwd, timeout=60
    )


def test_console_app_option_serves_the_example(tmp_path: Path) -> None:
    """`statebot console --app examples.my_bot:agents` runs the example's own tools and state."""
    first = _run([str(STATEBOT), "console", "--app", "examples.my_bot:agents"], tmp_path, SCRIPT)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [
        "Noted (1): Ship on Friday",
        "1. Ship on Friday",
        "Sessions (* current):",
        "* default (notes)",
    ]
    again = _run(
        [str(STATEBOT), "console", "--app", "examples.my_bot:agents"], tmp_path, "/list_notes\n"
    )
    assert again.stdout.strip() == "1. Ship on Friday"  # kept in the example's own my_bot.db
    assert (tmp_path / "my_bot.db").exists()


def test_serve_runs_the_example_in_the_console(tmp_path: Path) -> None:
    """`serve(create_agent(), platform="console")` answers like the CLI does."""
    code = (
        "from bots import serve; from examples.my_bot import create_agent; "
        "serve(create_agent(), platform='console')"
    )
    result = _run([sys.executable, "-c", code], tmp_path, SCRIPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == ["Noted (1): Ship on Friday", "1. Ship on Friday"]


def test_app_option_names_a_missing_attribute(tmp_path: Path) -> None:
    """A spec whose attribute does not exist exits 2 with a sentence saying so."""
    result = _run([str(STATEBOT), "console", "--app", "examples.my_bot:nope"], tmp_path, "")
    assert result.returncode == 2
    assert "module 'examples.my_bot' has no attribute 'nope'" in result.stderr
