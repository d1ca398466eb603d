"""Every shell command and every Python block in README.md and docs/*.md is real.

Commands come from fenced blocks tagged sh/bash/shell and from untagged blocks whose
lines start with a known program. Those that need tokens or a network (starting a bot,
docker compose) are not run; their targets, subcommands, options and files are checked.

Every ```python block runs as a whole program, on its own, in a fresh interpreter in
an empty directory, without network (proxies point nowhere; only 127.0.0.1 is
reached): what it uses it imports or defines itself. A block that talks to a model
gets the fake OpenAI server of ``core.testing`` through OPENAI_BASE_URL, playing the
turns :data:`MODEL_TURNS` gives it; :data:`PRINTS` says what some blocks must print.
A block whose first line is ``# some/path.py`` naming a file the repository does not
have is a file of the example package its page builds (docs/adapters.md's
``bots/adapters/teams/``): every such block of the page is written to a scratch tree
that extends its parent package, so the page's other blocks can import it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bots.cli.config import settings_classes
from bots.cli.main import main as cli_main
from core.testing import FakeOpenAIServer, tool_call

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


PYTHON_FENCE = re.compile(r"^( *)```python\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
FILE_LINE = re.compile(r"^# ([\w/]+\.py)\n")


def python_blocks() -> list[tuple[Path, str, str]]:
    """(page, id, code) of every ```python block; the id is ``<page stem>_<index>``."""
    found = []
    for doc in DOCS:
        for index, block in enumerate(PYTHON_FENCE.finditer(doc.read_text())):
            code = textwrap.dedent(block.group(2))
            found.append((doc, f"{doc.stem}_{index}", code))
    return found


BLOCKS = python_blocks()
#: what the fake model answers, turn by turn, to the blocks that run a model
MODEL_TURNS: dict[str, list[Any]] = {
    "README_0": [
        [tool_call("add_item", item="milk"), tool_call("add_item", item="eggs")],
        "Added milk and eggs.",
    ],
    "chat_0": ["Hello! Your board is empty."],
    "models_0": ["Hello from the default model."],
    "runtime_0": [tool_call("delete_tasks"), "The board is clear."] * 2,
    "teams-and-workflows_1": [
        tool_call("add_item", item="eggs"),
        "Eggs are on the list; dinner: an omelette.",
    ],
    "toolkits_0": [
        tool_call("add_task", title="Review the Q2 roadmap", category="work"),
        "Added task #1: Review the Q2 roadmap (work).",
    ],
    "files_0": ["Milk costs 2.", tool_call("chart", month="May"), "Here is May's chart."],
}
#: text a block must print (its own check that it did what the page says)
PRINTS: dict[str, str] = {
    "README_0": "{'shopping_list': ['milk', 'eggs']}",
    "chat_0": "Hello! Your board is empty.",
    "runtime_0": "The board is clear. {'tasks': []}",
    "teams-and-workflows_1": "tool add_item({'item': 'eggs'})",
    "teams-and-workflows_2": "Shopping list: milk, eggs ['manage_items', 'view_list']",
    "teams-and-workflows_3": "long: go home",
    "teams-and-workflows_4": "'list-flow']",
    "web-admin_0": "['/admin']",
    "memory_0": 'Nice to meet you, Ana. ["The user\'s name is Ana; she prefers tea."]',
    "toolkits_0": "Added task #1: Review the Q2 roadmap (work).",
    "state-schemas_1": "Added Ship it {'tasks': [{'title': 'Ship it'}]}",
    "files_0": "Milk costs 2.\n['May.png']",
}
#: runs a block as __main__ after extending packages with the page's scratch files
RUNNER = """
import importlib, runpy, sys
for package, directory in zip(sys.argv[3::2], sys.argv[4::2]):
    importlib.import_module(package).__path__.append(directory)
runpy.run_path(sys.argv[1], run_name="__main__")
"""


def _scratch_files(doc: Path, tmp_path: Path) -> list[str]:
    """Write the page's new-file blocks under ``tmp_path/pkgs``; the (package, directory)
    pairs that extend the repository's packages with them."""
    extend: dict[str, str] = {}
    for page, _, code in BLOCKS:
        found = FILE_LINE.match(code)
        if page != doc or found is None or (ROOT / found.group(1)).exists():
            continue
        path = tmp_path / "pkgs" / found.group(1)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
        parent = path.parent
        while not (ROOT / parent.relative_to(tmp_path / "pkgs")).exists():
            (parent / "__init__.py").touch()
            parent = parent.parent
        existing = parent.relative_to(tmp_path / "pkgs")
        extend[".".join(existing.parts)] = str(parent)
    return [item for pair in extend.items() for item in pair]


def _offline_env(base_url: str) -> dict[str, str]:
    """The environment of a block: no proxy reachable, the fake model, no stray settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "STATEBOT_", "REDIS_", "SLACK_", "DISCORD_"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    nowhere = "http://127.0.0.1:9"  # discard port: any request off this machine fails
    env.update(HTTP_PROXY=nowhere, HTTPS_PROXY=nowhere, ALL_PROXY=nowhere)
    env.update(NO_PROXY="127.0.0.1,localhost", PYTHONPATH=str(ROOT))
    env.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="test", STATEBOT_ENV_FILE="")
    return env


@pytest.mark.slow
@pytest.mark.parametrize(("doc", "block_id", "code"), BLOCKS, ids=[b for _, b, _ in BLOCKS])
def test_python_block_runs_as_a_whole_program(
    doc: Path, block_id: str, code: str, tmp_path: Path
) -> None:
    """The block runs alone (its imports and definitions its own) and exits 0."""
    program = tmp_path / f"{block_id}.py"
    program.write_text(code)
    extend = _scratch_files(doc, tmp_path)
    turns = MODEL_TURNS.get(block_id, [])
    with FakeOpenAIServer(turns) as server:
        result = subprocess.run(
            [sys.executable, "-c", RUNNER, str(program), "-", *extend],
            cwd=tmp_path,
            env=_offline_env(server.base_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, f"{block_id}:\n{result.stdout}\n{result.stderr}"
    assert server.remaining == 0, f"{block_id}: the model was asked less than scripted"
    assert PRINTS.get(block_id, "") in result.stdout
