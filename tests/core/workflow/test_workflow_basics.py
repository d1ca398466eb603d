"""Workflow-level checks that come before any step runs."""

from __future__ import annotations

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.exceptions import NoModelError
from core.workflow import Step, Workflow


async def test_a_workflow_whose_agent_step_has_no_model_refuses_and_stores_nothing() -> None:
    """Free text to a workflow with a model-less agent step raises and creates no session."""
    db = InMemoryDb()
    flow = Workflow(name="flow", db=db, steps=[Step(name="think", agent=Agent(id="thinker"))])
    with pytest.raises(NoModelError, match="'think'"):
        await flow.arun("hello", session_id="s")
    assert await db.aload("s") is None
