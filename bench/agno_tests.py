"""Agno's own session-state tests, run against ``core`` (or Agno) on a fake model.

Agno's files never enter this project: the script takes the path of an Agno checkout
(``fetch`` it, or ``git clone``), copies a fixed selection of its tests into a
temporary folder, rewrites ``agno`` to ``core`` in their imports (nothing else), and
runs pytest there with a conftest of ours that provides the three storage fixtures the
selection uses, built the way Agno's own conftest builds them. ``OPENAI_BASE_URL``
points at :class:`core.testing.FakeOpenAIServer`, which answers every request with
plain text, so no test reaches a network. Run once with ``--target agno`` under an
interpreter that has Agno installed to get Agno's own count on the same selection.

    .venv/bin/python -m bench.agno_tests --agno /path/to/agno/libs/agno
    .venv/bin/python -m bench.agno_tests --agno /path/to/agno/libs/agno \\
        --target agno --python /path/to/agno-venv/bin/python
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.testing import FakeOpenAIServer

#: the selection: Agno's tests of session state, sessions and their convenience API
SELECTION = (
    "integration/agent/test_session_state.py",
    "integration/agent/test_session.py",
    "integration/agent/test_agent_convenience_functions.py",
    "integration/session/test_agent_session.py",
    "integration/session/test_share_sessions.py",
    "integration/session/test_team_session.py",
    "integration/teams/test_session_state.py",
    "integration/teams/test_team_convenience_functions.py",
    "integration/workflows/test_parallel_session_state.py",
    "unit/agent/test_agentic_state_schema.py",
    "unit/models/test_generator_session_state.py",
)

#: our conftest: Agno's conftest's storage fixtures, nothing else
CONFTEST = """
import os, tempfile, uuid
import pytest, pytest_asyncio
from {pkg}.db.sqlite import SqliteDb


@pytest.fixture
def temp_storage_db_file():
    with tempfile.NamedTemporaryFile(suffix=".db", delete=False) as f:
        path = f.name
    yield path
    if os.path.exists(path):
        os.unlink(path)


def _table():
    return f"sessions_{{uuid.uuid4().hex[:8]}}"


@pytest.fixture
def shared_db(temp_storage_db_file):
    return SqliteDb(session_table=_table(), db_file=temp_storage_db_file)


@pytest_asyncio.fixture
async def async_shared_db(temp_storage_db_file):
    from {pkg}.db.sqlite import AsyncSqliteDb
    db = AsyncSqliteDb(session_table=_table(), db_file=temp_storage_db_file)
    await db._create_all_tables()
    return db
"""

PYTEST_INI = """[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
"""

_IMPORT = re.compile(r"^(\s*)(from|import) agno(\.|\s)", re.MULTILINE)


def port(text: str, target: str) -> str:
    """Agno's test text with ``agno`` replaced by ``target`` in import lines only."""
    if target == "agno":
        return text
    return _IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)} {target}{m.group(3)}", text)


@dataclass
class Outcome:
    """Counts of one run, and the failures' first lines by test."""

    counts: Counter[str] = field(default_factory=Counter)
    failures: dict[str, str] = field(default_factory=dict)


def count_tests(path: Path) -> int:
    """Test functions in one file (the selection has no parametrized tests)."""
    tree = ast.parse(path.read_text())
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += node.name.startswith("test_")
    return found


def _first_line(problem: ET.Element) -> str:
    message = problem.text or problem.get("message") or ""
    lines = [line for line in message.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("E ")]
    return (errors[-1] if errors else lines[0] if lines else "")[:200]


def _read_junit(path: Path, suite: Path) -> Outcome:
    """Counts from pytest's report; a file that fails to import counts all its tests."""
    outcome = Outcome()
    for case in ET.parse(path).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        problem = next((c for c in case if c.tag in {"failure", "error", "skipped"}), None)
        if problem is None:
            outcome.counts["passed"] += 1
        elif problem.tag == "skipped":
            outcome.counts["skipped"] += 1
        elif not case.get("classname"):  # collection failed: every test of the file fails
            module = suite / f"{case.get('name')}.py"
            outcome.counts["failed"] += count_tests(module) if module.exists() else 1
            outcome.failures[name] = "not collected: " + _first_line(problem)
        else:
            outcome.counts["failed"] += 1
            outcome.failures[name] = _first_line(problem)
    return outcome


def run(agno_tests: Path, target: str, python: str, keep: Path | None) -> Outcome:
    """Port the selection into a temporary folder and run it under ``python``."""
    work = Path(tempfile.mkdtemp(prefix="agno-tests-")) if keep is None else keep
    shutil.rmtree(work / "suite", ignore_errors=True)
    suite = work / "suite"
    for relative in SELECTION:
        source = agno_tests / relative
        flat = relative.removesuffix(".py").replace("/", "__").replace("test_", "")
        dest = suite / f"test_{flat}.py"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(port(source.read_text(), target))
    (suite / "conftest.py").write_text(CONFTEST.format(pkg=target))
    (suite / "pytest.ini").write_text(PYTEST_INI)
    report = work / f"junit-{target}.xml"
    with FakeOpenAIServer([lambda request: "ok"] * 200_000) as fake:
        env = {
            **os.environ,
            "OPENAI_BASE_URL": fake.base_url,
            "OPENAI_API_KEY": "sk-fake",
            "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        }
        subprocess.run(
            [
                python,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--continue-on-collection-errors",
                f"--junitxml={report}",
                *(["--timeout=60"] if _has_timeout(python) else []),
                str(suite),
            ],
            cwd=suite,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    outcome = _read_junit(report, suite)
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return outcome


def _has_timeout(python: str) -> bool:
    command = [python, "-c", "import pytest_timeout"]
    found = subprocess.run(command, capture_output=True, check=False)
    return found.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agno", type=Path, required=True, help="an Agno checkout's libs/agno")
    parser.add_argument(
        "--target",
        choices=("core", "agno"),
        default="core",
        help="the package the tests import (default: core)",
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter to run pytest with (one with the target installed)",
    )
    parser.add_argument("--keep", type=Path, help="keep the ported suite and report here")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    args = parser.parse_args(argv)
    outcome = run(args.agno / "tests", args.target, args.python, args.keep)
    total = sum(outcome.counts.values())
    if args.json:
        data: dict[str, Any] = {
            "target": args.target,
            "total": total,
            **outcome.counts,
            "failures": outcome.failures,
        }
        print(json.dumps(data, indent=2))
    else:
        print(
            f"{args.target}: {outcome.counts['passed']} passed, {outcome.counts['failed']} "
            f"failed, {outcome.counts['skipped']} skipped of {total}"
        )
        for name, message in sorted(outcome.failures.items()):
            print(f"  {name}: {message}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
