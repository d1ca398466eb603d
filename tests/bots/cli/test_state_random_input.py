"""Property: every ``statebot state`` subcommand fed random bytes — as its arguments,
as the file it imports, on stdin — exits 2 with one ``Error:`` line and changes nothing.

Runs the command's ``main`` in-process (click's runner, stdout and stderr apart) so many
examples stay fast; tests/bots/cli/test_cli_errors.py runs the real CLI in subprocesses.
Arguments are random bytes as a POSIX argv carries them (no NUL; what is not UTF-8
arrives as surrogate escapes, as Python gives it to the program).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bots.cli.main import main

#: an argument as the shell passes it: any bytes but NUL, decoded as Python decodes argv
ARG = st.binary(max_size=40).filter(lambda raw: b"\0" not in raw).map(os.fsdecode)
#: file or stdin content that is not an export: random bytes, not blank (an empty file is
#: a valid export of an empty store and imports nothing, truthfully)
CONTENT = st.binary(min_size=1, max_size=300).filter(lambda raw: raw.strip() != b"")

SESSIONS = [
    {"session_id": "seeded:one", "version": 3, "state": {"tasks": [{"id": 1, "title": "milk"}]}},
    {"session_id": "seeded:two", "version": 1, "state": {"note": "kept"}},
]


def _not_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return True
    return False


def _not_user_key(text: str) -> bool:
    # a well-formed key naming nobody is a fair request ("nothing found"), not bad input
    return text.count(":") < 2


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store holding two sessions, written by ``statebot state import``."""
    folder = tmp_path_factory.mktemp("random-input")
    source = folder / "seed.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in SESSIONS), encoding="utf-8")
    db = folder / "store.db"
    result = CliRunner().invoke(
        main, ["state", "--db-url", f"sqlite:///{db}", "import", str(source)]
    )
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture(autouse=True)
def no_settings_from_the_machine(monkeypatch: pytest.MonkeyPatch, seeded: Path) -> None:
    """Only this test's store: no REDIS_URL or .env of the machine running the tests."""
    for name in list(os.environ):
        if name.startswith(("STATEBOT_", "REDIS_URL")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("STATEBOT_ENV_FILE", "")
    monkeypatch.chdir(seeded.parent)


def store_contents(db: Path) -> list[str]:
    """Every table row of the SQLite store, as SQL text."""
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def check_refused(db: Path, args: list[str], stdin: bytes | None = None) -> None:
    """``statebot state ARGS`` exits 2, prints one Error: line and nothing else, and the
    store holds what it held."""
    before = store_contents(db)
    result = CliRunner().invoke(main, ["state", "--db-url", f"sqlite:///{db}", *args], input=stdin)
    shown = f"statebot state {args!r}: exit {result.exit_code}\n{result.output}"
    assert result.exception is None or isinstance(result.exception, SystemExit), shown
    assert result.exit_code == 2, shown
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), shown
    assert result.stdout == "", shown
    assert store_contents(db) == before


FAST = settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

#: each subcommand with random arguments where it takes them
ARGUMENT_CASES: dict[str, Callable[..., list[str]]] = {
    "dump": lambda s: ["dump", "--", s],
    "history": lambda s: ["history", "--", s],
    "diff": lambda s, a, b: ["diff", "--", s, a, b],
    "restore": lambda s, v: ["restore", "--", s, v],
    "delete": lambda s: ["delete", "--yes", "--", s],
}


@pytest.mark.parametrize("name", sorted(ARGUMENT_CASES))
def test_a_session_command_with_random_arguments_is_refused(seeded: Path, name: str) -> None:
    """dump, history, diff, restore and delete of a random session (and versions)."""
    build = ARGUMENT_CASES[name]
    arity = build.__code__.co_argcount

    @FAST
    @given(st.lists(ARG, min_size=arity, max_size=arity))
    def prop(values: list[str]) -> None:
        check_refused(seeded, build(*values))

    prop()


@FAST
@given(content=CONTENT)
def test_importing_a_file_of_random_bytes_is_refused(
    seeded: Path, tmp_path: Path, content: bytes
) -> None:
    """import FILE of random bytes (with and without --replace)."""
    source = tmp_path / "random.jsonl"
    source.write_bytes(content)
    check_refused(seeded, ["import", str(source)])
    check_refused(seeded, ["import", "--replace", str(source)])


@FAST
@given(content=CONTENT)
def test_importing_random_bytes_from_stdin_is_refused(seeded: Path, content: bytes) -> None:
    """import - with random bytes on stdin."""
    check_refused(seeded, ["import", "-"], stdin=content)


@FAST
@given(user=ARG.filter(_not_user_key))
def test_erase_and_export_of_a_random_user_are_refused(seeded: Path, user: str) -> None:
    """erase --user and export --user with a random user."""
    check_refused(seeded, ["erase", f"--user={user}", "--yes"])
    check_refused(seeded, ["export", f"--user={user}"])


@FAST
@given(agent=ARG)
def test_migrate_of_a_random_agent_is_refused(seeded: Path, agent: str) -> None:
    """migrate --agent naming no agent (dry run or not)."""
    check_refused(seeded, ["migrate", f"--agent={agent}"])
    check_refused(seeded, ["migrate", "--dry-run", f"--agent={agent}"])


@FAST
@given(value=ARG.filter(_not_number))
def test_a_random_number_option_is_refused(seeded: Path, value: str) -> None:
    """list --limit, history -n and expire --days given something that is not a number."""
    check_refused(seeded, ["list", f"--limit={value}"])
    check_refused(seeded, ["history", f"--limit={value}", "seeded:one"])
    check_refused(seeded, ["expire", f"--dm-days={value}"])


@FAST
@given(option=ARG.filter(lambda text: text not in ("", "-")).map(lambda text: f"--{text}"))
def test_a_random_option_is_refused_by_every_subcommand(seeded: Path, option: str) -> None:
    """Every subcommand given an option it does not have."""
    assume(option not in ("--help", "--yes", "--json", "--reveal", "--dry-run", "--replace"))
    for name in ("health", "list", "rekey", "usage", "expire", "export", "import"):
        check_refused(seeded, [name, option])
