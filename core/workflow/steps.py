"""Steps: a named group of steps run in order, as one step (Agno's ``agno.workflow.steps``).

Each step inside sees the previous one's content, as at the top level, and is saved
after it runs; the group's content is its last step's (a group without steps gives the
text "No steps to execute", as in Agno). Agno's confirmation before the group
(``requires_confirmation``) needs a person to answer mid-workflow, which workflows
here cannot ask: it is refused, not ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.workflow.execution import WorkflowRun
from core.workflow.step import as_step
from core.workflow.types import StepInput, StepOutput


class Steps:
    """``Steps(name=..., steps=[...])``: run ``steps`` in sequence, as one step."""

    def __init__(
        self,
        name: str | None = None,
        description: str | None = None,
        steps: Sequence[Any] | None = None,
        requires_confirmation: bool = False,
        confirmation_message: str | None = None,
    ) -> None:
        if requires_confirmation or confirmation_message is not None:
            raise ValueError(
                f"Steps({name!r}): requires_confirmation is not supported; a workflow "
                "cannot stop to ask a person here (use a tool with requires_confirmation "
                "on an agent run instead)"
            )
        self.steps = [as_step(s) for s in steps or ()]
        self.name: str | None = name or "steps"
        self.description = description

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput:
        """Run the steps in order; the content is the last one's."""
        if not self.steps:
            return StepOutput(content="No steps to execute", step_name=self.name, step_type="steps")
        outputs = await run.run_sequence(self.steps, step_input.previous_step_content)
        content = outputs[-1].content if outputs else step_input.previous_step_content
        return StepOutput(content=content, step_name=self.name, step_type="steps", steps=outputs)

    def __repr__(self) -> str:
        return f"Steps({self.name!r}, {[s.name for s in self.steps]})"
