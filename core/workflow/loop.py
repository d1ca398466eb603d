"""Loop: repeat steps until an end condition holds or ``max_iterations`` is reached.

``end_condition`` receives the outputs of the iteration just finished (as its first
parameter, or by the name ``outputs``) and, by name, ``run_context`` /
``session_state`` / ``step_input``; returning true ends the loop. It may also be a CEL
expression string (:mod:`core.workflow.cel`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.workflow.cel import CelExpression, loop_variables
from core.workflow.execution import WorkflowRun, call_user_function
from core.workflow.step import as_step
from core.workflow.types import StepInput, StepOutput


class Loop:
    """``Loop(steps, end_condition, max_iterations)``."""

    def __init__(
        self,
        steps: Sequence[Any],
        end_condition: Callable[..., Any] | str | None = None,
        max_iterations: int = 3,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        if max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, not {max_iterations}")
        self.steps = [as_step(s) for s in steps]
        self.end_condition = end_condition
        self.max_iterations = max_iterations
        self.name: str | None = name or "loop"
        self.cel = (
            CelExpression(end_condition, f"loop {self.name!r}")
            if isinstance(end_condition, str)
            else None
        )
        self.description = description

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput:
        """Run iterations; the content is the last step's of the last iteration."""
        previous = step_input.previous_step_content
        all_outputs: list[StepOutput] = []
        for iteration in range(1, self.max_iterations + 1):
            outputs = await run.run_sequence(self.steps, previous)
            all_outputs.extend(outputs)
            if outputs:
                previous = outputs[-1].content
            if run.stopped or await self._should_end(outputs, run, iteration):
                break
        return StepOutput(
            content=previous, step_name=self.name, step_type="loop", steps=all_outputs
        )

    async def _should_end(
        self, outputs: list[StepOutput], run: WorkflowRun, iteration: int
    ) -> bool:
        if self.cel is not None:
            return self.cel.truth(loop_variables(outputs, iteration, self.max_iterations))
        if self.end_condition is None or isinstance(self.end_condition, str):
            return False
        previous = outputs[-1].content if outputs else None
        values = {**run.values(run.step_input(previous)), "outputs": outputs}
        try:
            return bool(await call_user_function(self.end_condition, outputs, values))
        finally:
            run.adopt_state()
