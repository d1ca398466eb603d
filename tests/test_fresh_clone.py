"""The README's offline commands work in a fresh clone of the repository, as in CI.

The clone is of HEAD (committed work only). The current virtual environment stands in
for the one `make` would create (installing a new one takes a minute), but its
interpreter runs the clone's code: the clone is first on PYTHONPATH.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: the README's console example: an untagged fenced block of slash commands
SLASH_BLOCK = re.compile(r"^```\n((?:/[^\n]*\n)+)```", re.MULTILINE)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A `git clone` of the working repository's HEAD in a temporary directory."""
    target = tmp_path_factory.mktemp("clone") / "statebot"
    subprocess.run(
        ["git", "clone", "--quiet", str(ROOT), str(target)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    yield target


def run(clone: Path, args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command in the clone with the venv on PATH and no variable from the caller."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STATEBOT_", "SLACK_"))}
    for name in ("REDIS_URL", "DISCORD_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL", "PORT"):
        env.pop(name, None)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(clone)
    return subprocess.run(
        args, cwd=clone, env=env, input=stdin, capture_output=True, text=True, timeout=60
    )


def test_clone_runs_its_own_code(clone: Path) -> None:
    """The interpreter on PATH imports `bots` from the clone, not from the working tree."""
    result = run(clone, ["python", "-c", "import bots; print(bots.__file__)"])
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(clone)


def test_statebot_help_lists_the_commands(clone: Path) -> None:
    """`statebot --help` in the clone lists every process the README names."""
    result = run(clone, ["statebot", "--help"])
    assert result.returncode == 0, result.stderr
    for command in ("console", "slack", "discord", "snapshotter", "config"):
        assert re.search(rf"^\s+{command}\b", result.stdout, re.MULTILINE), command


def test_config_reports_a_value_from_the_clones_env_file(clone: Path) -> None:
    """`statebot config` shows a setting from the clone's .env, with ".env" as its source."""
    (clone / ".env").write_text("STATEBOT_DB_URL=sqlite:///from-dotenv.db\n")
    try:
        result = run(clone, ["statebot", "config"])
    finally:
        (clone / ".env").unlink()
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("STATEBOT_DB_URL "))
    assert "sqlite:///from-dotenv.db" in line and "(.env)" in line


def test_console_runs_the_readme_slash_commands_against_sqlite_in_the_clone(
    clone: Path,
) -> None:
    """The README's slash commands, piped to `statebot console`, change state kept in SQLite."""
    block = SLASH_BLOCK.search((clone / "README.md").read_text())
    assert block is not None, "README has no block of slash commands"
    (clone / ".env").write_text("STATEBOT_DB_URL=sqlite:///readme.db\n")
    try:
        first = run(clone, ["statebot", "console"], stdin=block.group(1))
        again = run(clone, ["statebot", "console"], stdin="/list\n")
    finally:
        (clone / ".env").unlink()
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Review Q2 roadmap" in first.stdout
    assert (clone / "readme.db").is_file()  # the .env's database, inside the clone
    assert again.returncode == 0, again.stderr
    assert "Review Q2 roadmap" in again.stdout  # the state survived the restart


def test_make_targets_of_the_readme_resolve(clone: Path) -> None:
    """`make -n run test slack bench` in the clone prints the commands it would run."""
    result = run(clone, ["make", "-n", "run", "test", "slack", "bench"])
    assert result.returncode == 0, result.stderr
    for expected in (
        "statebot console",
        "pytest",
        "statebot slack",
        "python -m bench.run_all",
    ):
        assert expected in result.stdout, expected


def test_the_module_make_bench_runs_exists_in_the_clone(clone: Path) -> None:
    """`make bench` runs `python -m bench.run_all`, which the clone can import (`--help`)."""
    result = run(clone, ["python", "-m", "bench.run_all", "--help"])
    assert result.returncode == 0, result.stderr
    assert "--quick" in result.stdout


def test_databases_and_their_sqlite_side_files_are_ignored(clone: Path) -> None:
    """The stores a first run leaves in the clone (the database, SQLite's -wal and -shm
    files of a process still running or killed) are not offered to `git add`."""
    names = ["statebot.db", "statebot.db-wal", "statebot.db-shm", "tmp/agents.db-wal"]
    result = subprocess.run(
        ["git", "check-ignore", "--verbose", "--non-matching", *names],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    not_ignored = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert not_ignored == [], not_ignored
