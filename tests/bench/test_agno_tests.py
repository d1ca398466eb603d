"""The Agno-tests harness: imports rewritten and nothing else; counts read truthfully."""

from __future__ import annotations

from pathlib import Path

from bench.agno_tests import _read_junit, port

AGNO_TEXT = """import agno.utils
from agno.agent import Agent  # agno stays in comments
    from agno.db.sqlite import SqliteDb
text = "from agno.agent import Agent"
agnostic = 1
"""


def test_port_rewrites_import_lines_only() -> None:
    ported = port(AGNO_TEXT, "core")
    assert ported.splitlines() == [
        "import core.utils",
        "from core.agent import Agent  # agno stays in comments",
        "    from core.db.sqlite import SqliteDb",
        'text = "from agno.agent import Agent"',
        "agnostic = 1",
    ]
    assert port(AGNO_TEXT, "agno") == AGNO_TEXT


JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="" name="test_broken"><error message="collection failure">Traceback:
E   ImportError: cannot import name 'SessionType'</error></testcase>
<testcase classname="test_ok" name="test_a" />
<testcase classname="test_ok" name="test_b"><failure message="assert 1 == 2">x
E       assert 1 == 2</failure></testcase>
<testcase classname="test_ok" name="test_c"><skipped message="no" /></testcase>
</testsuite></testsuites>"""


def test_a_file_that_fails_to_import_counts_each_of_its_tests(tmp_path: Path) -> None:
    (tmp_path / "test_broken.py").write_text(
        "def test_one(): pass\n"
        "async def test_two(): pass\n"
        "class T:\n    def test_three(self): pass\n"
    )
    report = tmp_path / "junit.xml"
    report.write_text(JUNIT)
    outcome = _read_junit(report, tmp_path)
    assert outcome.counts == {"passed": 1, "failed": 4, "skipped": 1}
    assert outcome.failures["::test_broken"].endswith("cannot import name 'SessionType'")
    assert outcome.failures["test_ok::test_b"] == "E       assert 1 == 2"
