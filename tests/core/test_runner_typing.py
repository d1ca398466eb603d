"""run/arun are typed per ``stream``: a type checker sees RunOutput or events, never Any."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

USAGE = textwrap.dedent(
    """
    from collections.abc import AsyncIterator, Iterator
    from typing import assert_type

    from core.agent import Agent
    from core.run.events import RunOutputEvent
    from core.run.output import RunOutput
    from core.team import Team
    from core.workflow.workflow import Workflow


    async def check(agent: Agent, team: Team, workflow: Workflow) -> None:
        for owner in (agent, team):
            assert_type(owner.run("hi"), RunOutput)
            assert_type(owner.run("hi", stream=True), Iterator[RunOutputEvent])
            assert_type(await owner.arun("hi", session_id="s"), RunOutput)
            assert_type(owner.arun("hi", stream=True), AsyncIterator[RunOutputEvent])
        # a workflow's own stream= default decides when a run does not say
        assert_type(workflow.run("hi"), RunOutput | Iterator[RunOutputEvent])
        assert_type(workflow.run("hi", stream=False), RunOutput)
        assert_type(workflow.run("hi", stream=True), Iterator[RunOutputEvent])
        assert_type(await workflow.arun("hi", stream=False), RunOutput)
        assert_type(workflow.arun("hi", stream=True), AsyncIterator[RunOutputEvent])
        output = await agent.arun("hi")
        output.no_such_attribute
    """
)


@pytest.mark.slow
def test_run_and_arun_overloads_type_outputs_and_events(tmp_path: Path) -> None:
    """mypy infers RunOutput / event iterators from stream=, and flags unknown attributes."""
    usage = tmp_path / "usage.py"
    usage.write_text(USAGE, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", str(usage)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in proc.stdout.splitlines() if ": error:" in line]
    # exactly one error: the attribute a RunOutput does not have (so it is not Any)
    assert len(errors) == 1, proc.stdout
    assert '"RunOutput" has no attribute "no_such_attribute"' in errors[0]
