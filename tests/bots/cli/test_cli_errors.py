"""Every ``statebot`` command reports bad settings and bad input in one line per problem
(exit 2), never a traceback: the real CLI in a subprocess, with a ``.env`` file in its
working directory as an operator has it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

STATEBOT = str(Path(sys.executable).parent / "statebot")
#: variables of the machine running the tests that would change what the CLI reads
_OURS = ("STATEBOT_", "SLACK_", "DISCORD_", "OPENAI_", "REDIS_URL", "PORT")


def clean_env(**extra: str) -> dict[str, str]:
    """The test machine's environment without any Statebot setting, plus ``extra``."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    return {**kept, **extra}


def run_all(
    commands: Sequence[Sequence[str]], cwd: Path, env: dict[str, str]
) -> list[subprocess.CompletedProcess[str]]:
    """Run each command (arguments after ``statebot``) at once; subprocesses are slow."""

    def one(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [STATEBOT, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, commands))


def error_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stderr.splitlines()


EVERY_COMMAND = [
    ["slack"],
    ["discord"],
    ["console"],
    ["web"],
    ["snapshotter", "--once"],
    ["state", "list"],
    ["config"],
]


def test_a_malformed_state_key_in_dotenv_is_one_line_in_every_command(tmp_path: Path) -> None:
    """STATEBOT_STATE_KEYS that is not a Fernet key: one line naming the variable, its
    .env source and the fix, exit 2, the value never echoed, in every command (five of
    them printed a 31-line traceback)."""
    (tmp_path / ".env").write_text("STATEBOT_STATE_KEYS=not-a-key-xyz\n")
    results = run_all(EVERY_COMMAND, tmp_path, clean_env())
    for command, result in zip(EVERY_COMMAND, results, strict=True):
        shown = f"statebot {' '.join(command)}: {result.stderr}"
        assert result.returncode == 2, shown
        assert error_lines(result) == [
            "Error: STATEBOT_STATE_KEYS (from .env): encryption key #1 is not a Fernet key "
            '(32 url-safe base64-encoded bytes); generate one with: python -c "from '
            'cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'
        ], shown
        assert "not-a-key-xyz" not in result.stderr + result.stdout, shown


def test_a_bad_admin_id_names_the_variable_and_the_dotenv_file(tmp_path: Path) -> None:
    """STATEBOT_ADMIN_IDS=W222 from .env: one line saying so, exit 2 (a 40-line pydantic
    traceback before)."""
    (tmp_path / ".env").write_text("STATEBOT_ADMIN_IDS=W222\n")
    commands = [["slack"], ["console"], ["web"], ["state", "list"]]
    results = run_all(commands, tmp_path, clean_env())
    for command, result in zip(commands, results, strict=True):
        shown = f"statebot {' '.join(command)}: {result.stderr}"
        assert result.returncode == 2, shown
        [line] = error_lines(result)
        assert line.startswith("Error: STATEBOT_ADMIN_IDS (from .env): 'W222' is a bare user id"), (
            shown
        )


def test_each_problem_is_one_line_with_its_own_source(tmp_path: Path) -> None:
    """Two bad settings, one from the environment and one from a named settings file:
    two lines, each naming its variable and where its value came from."""
    settings = tmp_path / "prod.env"
    settings.write_text("STATEBOT_ADMIN_IDS=slack:T1:U1,W222\n")
    env = clean_env(STATEBOT_WEB_PORT="eighty", STATEBOT_ENV_FILE=str(settings))
    [result] = run_all([["discord"]], tmp_path, env)
    assert result.returncode == 2, result.stderr
    first, second = error_lines(result)
    assert first.startswith(f"Error: STATEBOT_ADMIN_IDS (from {settings}): 'W222' is a bare")
    assert second == (
        "Error: STATEBOT_WEB_PORT (from the environment): Input should be a valid integer, "
        "unable to parse string as an integer"
    )


def test_a_usage_error_is_one_line_saying_where_help_is(tmp_path: Path) -> None:
    """A value click cannot parse: exit 2 and one line pointing at --help (click printed
    the usage, a hint and a blank line)."""
    [result] = run_all([["state", "restore", "some-session", "latest"]], tmp_path, clean_env())
    assert result.returncode == 2
    assert error_lines(result) == [
        "Error: Invalid value for 'VERSION': 'latest' is not a valid integer. "
        "(see 'statebot state restore --help')"
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (bytes(range(128, 256)), "'in.jsonl' is not UTF-8 text (byte 0x80 at offset 0)"),
        ('{"session_id": "café"}\n'.encode("latin-1"), "'in.jsonl' is not UTF-8 text (byte 0xe9"),
        (
            b'{"session_id": "a", "state": {"x": ' + b"[" * 5000 + b"]" * 5000 + b"}}\n",
            "line 1: nested too deeply to read; nothing was imported",
        ),
    ],
    ids=["binary", "latin-1", "deeply-nested"],
)
def test_importing_a_file_that_is_no_export_is_one_line(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    """A binary, Latin-1 or deeply nested file: one line, exit 2, the store untouched
    (each printed a traceback)."""
    (tmp_path / "in.jsonl").write_bytes(content)
    db = tmp_path / "s.db"
    args = ["state", "import", "in.jsonl", "--db-url", f"sqlite:///{db}"]
    [result] = run_all([args], tmp_path, clean_env())
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result)
    assert line.startswith(f"Error: {expected}"), line
    assert not db.exists()  # refused before any store was opened


def test_exporting_to_a_path_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    """export into a missing directory or onto a directory: one line each, exit 2."""
    db = f"sqlite:///{tmp_path / 's.db'}"
    [imported] = run_all([["state", "import", "-", "--db-url", db]], tmp_path, clean_env())
    assert imported.returncode == 0, imported.stderr
    targets = [str(tmp_path / "no-such-dir" / "out.jsonl"), "/proc/out.jsonl"]
    results = run_all(
        [["state", "export", target, "--db-url", db] for target in targets], tmp_path, clean_env()
    )
    for target, result in zip(targets, results, strict=True):
        assert result.returncode == 2, result.stderr
        assert error_lines(result) == [f"Error: cannot write {target!r}: No such file or directory"]


def test_the_documented_placeholder_web_secret_stops_every_console(tmp_path: Path) -> None:
    """STATEBOT_WEB_SECRET set to the placeholder docs/web-admin.md used to show: the
    console (statebot web, and the one Slack's HTTP mode mounts) does not start, and the
    one line says how to make a secret (both served, and took cookies signed with it)."""
    (tmp_path / ".env").write_text(
        "STATEBOT_WEB_SECRET=change-me-to-32-random-characters\n"
        "STATEBOT_ADMIN_IDS=slack:T1:U1\nSLACK_BOT_TOKEN=xoxb-1\nSLACK_SIGNING_SECRET=s\n"
    )
    commands = [["web", "--port", "0"], ["slack", "--port", "0"]]
    for result in run_all(commands, tmp_path, clean_env()):
        assert result.returncode == 2, result.stderr
        assert error_lines(result) == [
            "Error: STATEBOT_WEB_SECRET (from .env): the value is a placeholder, not a random "
            'secret; make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"'
        ]
