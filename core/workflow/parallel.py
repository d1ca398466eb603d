"""Parallel: run steps concurrently, each on its own consistent copy of the state.

Each branch starts from a deep copy of the state as it was when the Parallel began,
so no branch sees another's half-done changes. When every branch has finished, their
states are merged back (see :mod:`core.workflow.merge` for the rule) and saved once;
a conflict or a failing branch leaves the state as it was before the Parallel.
"""

from __future__ import annotations

import asyncio
from typing import Any

from core.workflow.execution import WorkflowRun
from core.workflow.merge import merge_branch_states
from core.workflow.step import as_step
from core.workflow.types import StepInput, StepOutput, content_text


class Parallel:
    """``Parallel(step_a, step_b, ..., name=None)``."""

    def __init__(self, *steps: Any, name: str | None = None, description: str | None = None):
        if not steps:
            raise ValueError("Parallel needs at least one step")
        self.steps = [as_step(s) for s in steps]
        self.name: str | None = name or "parallel"
        self.description = description

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput:
        """Run the branches, merge their states, combine their contents."""
        base = run.handle.tracker.public_state()
        branches = [run.branch() for _ in self.steps]
        tasks = [
            asyncio.ensure_future(branch.run_step(step, step_input))
            for branch, step in zip(branches, self.steps, strict=True)
        ]
        try:
            outputs: list[StepOutput] = list(await asyncio.gather(*tasks))
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        labelled = [
            (step.name or f"branch {index}", branch.handle.tracker.public_state())
            for index, (step, branch) in enumerate(zip(self.steps, branches, strict=True))
        ]
        run.replace_state(merge_branch_states(base, labelled))
        if any(branch.stopped for branch in branches):
            run.stopped = True
        content = "\n\n".join(
            f"=== {output.step_name} ===\n{content_text(output.content)}"
            for output in outputs
            if output.content is not None
        )
        return StepOutput(
            content=content or None, step_name=self.name, step_type="parallel", steps=outputs
        )
