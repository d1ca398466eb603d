"""A `.env` copied from deploy/.env.example, in the directory a user runs from, does not
break their own agent: through the real CLI and ``python examples/my_bot.py``."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATEBOT = Path(sys.executable).parent / "statebot"
SCRIPT = '/add_note "Ship on Friday"\n/list_notes\n'
NOTES = ["Noted (1): Ship on Friday", "1. Ship on Friday"]
TWO_AGENTS = '''
from core.agent import Agent

def add_note(session_state, text: str) -> str:
    """Add a note."""
    session_state.setdefault("notes", []).append(text)
    return "noted"

agents = {"notes": Agent(name="notes", tools=[add_note]), "jots": Agent(name="jots")}
'''


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "STATEBOT_"))}
    env.pop("REDIS_URL", None)
    env["PYTHONPATH"] = str(ROOT)  # the example is imported as examples.my_bot
    return env


def _run(argv: list[str], cwd: Path, stdin: str = SCRIPT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=_env(), cwd=cwd, timeout=60
    )


def _console_app(spec: str = "examples.my_bot:agents") -> list[str]:
    return [str(STATEBOT), "console", "--app", spec]


def test_copied_env_example_serves_the_example_quietly(tmp_path: Path) -> None:
    """After `cp deploy/.env.example .env`, --app and my_bot.py answer with no warning."""
    shutil.copy(ROOT / "deploy" / ".env.example", tmp_path / ".env")
    for argv in (_console_app(), [sys.executable, str(ROOT / "examples" / "my_bot.py")]):
        result = _run(argv, tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[:2] == NOTES
        assert "default_agent" not in result.stderr and "Error" not in result.stderr
        (tmp_path / "my_bot.db").unlink()


@pytest.mark.parametrize("how", ["statebot console --app", "python examples/my_bot.py"])
def test_default_agent_the_app_lacks_falls_back_with_a_warning(tmp_path: Path, how: str) -> None:
    """A .env naming the ready taskboard: the one-agent app answers and the warning names
    the file and line the setting came from."""
    lines = ["# mine", "STATEBOT_LOG_FORMAT=console", "STATEBOT_DEFAULT_AGENT=taskboard"]
    (tmp_path / ".env").write_text("\n".join(lines) + "\n")
    argv = (
        _console_app()
        if how.startswith("statebot")
        else [sys.executable, str(ROOT / "examples" / "my_bot.py")]
    )
    result = _run(argv, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[:2] == NOTES
    assert "default_agent_not_in_app" in result.stderr
    assert ".env line 3" in result.stderr and "using=notes" in result.stderr


def test_default_agent_among_several_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    """An app of two agents cannot guess: exit 2, one line naming the .env line."""
    (tmp_path / "two.py").write_text(TWO_AGENTS)
    (tmp_path / ".env").write_text("STATEBOT_DEFAULT_AGENT=taskboard\n")
    result = _run(_console_app("two:agents"), tmp_path, "")
    assert result.returncode == 2
    assert (
        "STATEBOT_DEFAULT_AGENT='taskboard' (from .env line 1) is not an agent of the app "
        "(agents: notes, jots)" in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_environment_wins_and_is_named_as_the_source(tmp_path: Path) -> None:
    """Set in the environment, the warning says so (not the .env that also sets it)."""
    (tmp_path / ".env").write_text("STATEBOT_DEFAULT_AGENT=shopping\n")
    env = {**_env(), "STATEBOT_DEFAULT_AGENT": "taskboard", "STATEBOT_LOG_FORMAT": "console"}
    result = subprocess.run(
        _console_app(),
        input=SCRIPT,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "source='the environment'" in result.stderr or "source=the environment" in result.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stderr", "expected"), [(_Terminal(), "console"), (io.StringIO(), "json")]
)
def test_copied_env_example_picks_the_log_format_by_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stderr: io.StringIO, expected: str
) -> None:
    """The example leaves STATEBOT_LOG_FORMAT unset: readable lines in a terminal, JSON
    when stderr is a pipe or a file (compose, systemd)."""
    from bots.settings import Settings

    shutil.copy(ROOT / "deploy" / ".env.example", tmp_path / ".env")
    monkeypatch.chdir(tmp_path)
    for name in ("STATEBOT_ENV_FILE", "STATEBOT_LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "stderr", stderr)
    assert Settings().statebot_log_format == expected
