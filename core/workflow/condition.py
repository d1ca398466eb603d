"""Condition: run some steps only when an evaluator says so.

The evaluator is a bool, a function (sync or async) receiving ``step_input`` and, by
name, ``run_context`` / ``session_state``, or a CEL expression string
(:mod:`core.workflow.cel`); its truthiness decides. A condition that is
not met runs nothing and passes the previous step's content through unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.workflow.cel import CelExpression, step_variables
from core.workflow.execution import WorkflowRun, call_user_function
from core.workflow.step import as_step
from core.workflow.types import StepInput, StepOutput


class Condition:
    """``Condition(evaluator, steps)``: the steps run when the evaluator is true; else
    ``else_steps`` when given (Agno's), else the previous content passes through."""

    def __init__(
        self,
        evaluator: Callable[..., Any] | bool | str,
        steps: Sequence[Any],
        name: str | None = None,
        description: str | None = None,
        else_steps: Sequence[Any] | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.steps = [as_step(s) for s in steps]
        self.else_steps = [as_step(s) for s in else_steps or ()]
        self.name: str | None = name or "condition"
        self.cel = (
            CelExpression(evaluator, f"condition {self.name!r}")
            if isinstance(evaluator, str)
            else None
        )
        self.description = description

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput:
        """Evaluate, then run the steps or pass the previous content through."""
        if isinstance(self.evaluator, bool):
            met = self.evaluator
        elif isinstance(self.evaluator, str):
            assert self.cel is not None  # compiled in __init__
            met = self.cel.truth(step_variables(step_input, run.handle.tracker.public_view()))
        else:
            try:
                decision = await call_user_function(
                    self.evaluator, step_input, run.values(step_input)
                )
                met = bool(decision)
            finally:
                run.adopt_state()
        branch = self.steps if met else self.else_steps
        if not branch:
            return StepOutput(
                content=step_input.previous_step_content, step_name=self.name, step_type="condition"
            )
        outputs = await run.run_sequence(branch, step_input.previous_step_content)
        content = outputs[-1].content if outputs else step_input.previous_step_content
        return StepOutput(
            content=content, step_name=self.name, step_type="condition", steps=outputs
        )
