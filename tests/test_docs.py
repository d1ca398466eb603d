"""Every shell command in README.md and docs/*.md is real: run offline, or checked.

Commands come from fenced blocks tagged sh/bash/shell and from untagged blocks whose
lines start with a known program. Those that need tokens or a network (starting a bot,
docker compose) are not run; their targets, subcommands, options and files are checked.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bots.cli.config import settings_classes
from bots.cli.main import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PROGRAMS = ("make", "statebot", ".venv/bin/", "cp", "docker", "export", "python")
STATEBOT = str(Path(sys.executable).parent / "statebot")
#: make targets that start a bot or the console or run the suite: `make -n` only
MAKE_TARGETS = re.compile(r"^([a-z][a-z-]*):", re.MULTILINE)


def shell_commands() -> list[tuple[str, str]]:
    """(file name, command) for every command line in a fenced block of the docs."""
    found = []
    fence = re.compile(r"^( *)```([a-z]*)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
    for doc in DOCS:
        for block in fence.finditer(doc.read_text()):
            if block.group(2) not in ("", "sh", "bash", "shell"):
                continue
            for line in block.group(3).splitlines():
                command = re.split(r"\s+#\s", line.strip(), maxsplit=1)[0].strip()
                if command.startswith(PROGRAMS):
                    found.append((doc.name, command))
    return found


COMMANDS = shell_commands()


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    """Run one command in the project root, offline, output captured."""
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=60)


def check_make(words: list[str]) -> None:
    """The target exists and `make -n` (print, do not run) accepts the line."""
    targets = set(MAKE_TARGETS.findall((ROOT / "Makefile").read_text()))
    for word in words[1:]:
        if "=" not in word:
            assert word in targets, f"no make target {word!r}"
    result = run(["make", "-n", *words[1:]])
    assert result.returncode == 0, result.stderr


def statebot_help(path: list[str]) -> tuple[int, str]:
    """``statebot <path> --help`` through the CLI's own click group, in this process.

    In-process because each documented command checks its help (a subprocess costs
    the CLI's start-up, seconds each); the installed ``statebot`` script itself is run by
    :func:`test_statebot_help_and_state_list_run`.
    """
    result = CliRunner().invoke(cli_main, [*path, "--help"], prog_name="statebot")
    return result.exit_code, result.output


def check_statebot(words: list[str]) -> None:
    """The subcommand exists and every option it shows is in its --help."""
    path = [w for w in words[1:] if re.fullmatch(r"[a-z][a-z-]*", w)]
    # the subcommand path ends at the first argument that is not a command name
    code, output = statebot_help(path)
    while code != 0 and path:
        path.pop()
        code, output = statebot_help(path)
    assert code == 0, output
    for option in re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", " ".join(words[1:])):
        assert option in output, f"{' '.join(words)}: {option} not in --help"


def check_command(command: str) -> None:
    """Run the command when it can run offline; else check what it refers to."""
    words = shlex.split(command.replace("[", " ").replace("]", " ").replace("|", " "))
    program = words[0]
    if program == "make":
        check_make(words)
    elif program in ("statebot", ".venv/bin/statebot"):
        check_statebot(words)
    elif program == "cp":
        assert (ROOT / words[1]).is_file(), f"{words[1]} does not exist"
        assert (ROOT / words[2]).parent.is_dir(), f"no directory for {words[2]}"
    elif program == "docker":  # needs an engine and the network: check the file
        compose = words[words.index("-f") + 1]
        assert (ROOT / compose).is_file(), f"{compose} does not exist"
    elif program == "export":
        name, _, value = words[1].partition("=")
        owners = [cls for cls in settings_classes() if name.lower() in cls.model_fields]
        assert owners, f"{name} is not a setting"
        if value and not value.startswith(("$", "<")):  # a literal value a reader may copy
            owners[0](**{name.lower(): value})  # refused placeholders fail here
    elif program == ".venv/bin/pytest":
        paths = [w for w in words[1:] if not w.startswith("-")]
        result = run([sys.executable, "-m", "pytest", "--collect-only", "-q", *paths])
        assert result.returncode == 0, result.stdout[-2000:]
    elif program == ".venv/bin/lint-imports":
        result = run([str(Path(sys.executable).with_name("lint-imports"))])
        assert result.returncode == 0, result.stdout[-2000:]
    elif program in (".venv/bin/python", "python"):
        module = words[words.index("-m") + 1]
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), f"no module {module}"
    else:
        raise AssertionError(f"no rule to check {command!r}: add one to tests/test_docs.py")


def test_docs_have_commands() -> None:
    """The extraction finds the README's quick start and the chat and CLI commands."""
    commands = {command for _, command in COMMANDS}
    assert {"make run", "make test", "make slack", "make snapshotter"} <= commands
    assert any(command.startswith("statebot state") for command in commands)


def test_readme_commands_work_without_an_active_venv() -> None:
    """The README never shows a bare `statebot`: a fresh clone has it only in .venv/bin."""
    bare = [c for doc, c in COMMANDS if doc == "README.md" and c.startswith("statebot")]
    assert bare == [], f"use make or .venv/bin/statebot: {bare}"


@pytest.mark.slow
@pytest.mark.parametrize(("doc", "command"), COMMANDS, ids=[c for _, c in COMMANDS])
def test_documented_command_works(doc: str, command: str) -> None:
    """A command shown in the docs runs offline, or what it names exists."""
    check_command(command)


def test_statebot_help_and_state_list_run(tmp_path: Path) -> None:
    """`statebot --help` and `statebot state --help` run offline and exit 0."""
    assert run([STATEBOT, "--help"]).returncode == 0
    result = run([STATEBOT, "state", "--help"])
    assert result.returncode == 0 and "list" in result.stdout
