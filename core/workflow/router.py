"""Router: a selector picks which of its choices run.

The selector (sync or async, receiving ``step_input`` and, by name, ``run_context`` /
``session_state`` / ``step_choices`` — the list of choices, as steps) may return:

- a step (one of the choices, or any step, agent, team or function) or a list of them;
- a step name (a string matching a choice's name);
- an int, the index of a choice;
- a bool, as in ``selector = lambda ...: state["mode"] == "a"``: ``True`` picks the
  first choice, ``False`` the second (needs at least two choices);
- ``None`` or an empty list: nothing runs and the previous content passes through.

Anything else is a :class:`RouterSelectionError` naming what was returned. The selector
may also be a CEL expression string returning a choice's name (:mod:`core.workflow.cel`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from core.exceptions import RouterSelectionError as RouterSelectionError
from core.workflow.cel import CelExpression, step_variables
from core.workflow.execution import StepLike, WorkflowRun, call_user_function
from core.workflow.step import as_step
from core.workflow.types import StepInput, StepOutput


class Router:
    """``Router(selector, choices)``: run the choice(s) the selector returns."""

    def __init__(
        self,
        selector: Callable[..., Any] | str,
        choices: Sequence[Any],
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        self.selector = selector
        self.choices = [as_step(c) for c in choices]
        self.name: str | None = name or "router"
        self.cel = (
            CelExpression(selector, f"router {self.name!r}") if isinstance(selector, str) else None
        )
        self.description = description

    def resolve(self, selection: Any) -> list[StepLike]:
        """The steps a selector's return value stands for."""
        if selection is None:
            return []
        if isinstance(selection, list | tuple):
            return [step for item in selection for step in self._one(item)]
        return self._one(selection)

    def _one(self, item: Any) -> list[StepLike]:
        if isinstance(item, bool):
            if len(self.choices) < 2:
                raise RouterSelectionError(
                    f"router {self.name!r}: the selector returned {item}, which picks the first "
                    "(True) or second (False) choice, but there are fewer than two choices"
                )
            return [self.choices[0 if item else 1]]
        if isinstance(item, int):
            if not 0 <= item < len(self.choices):
                raise RouterSelectionError(
                    f"router {self.name!r}: choice index {item} is out of range "
                    f"(0..{len(self.choices) - 1})"
                )
            return [self.choices[item]]
        if isinstance(item, str):
            exact = [c for c in self.choices if c.name == item]
            loose = [c for c in self.choices if (c.name or "").lower() == item.lower()]
            if exact or loose:
                return (exact or loose)[:1]
            names = ", ".join(repr(c.name) for c in self.choices)
            raise RouterSelectionError(
                f"router {self.name!r}: no choice named {item!r}; choices: {names}"
            )
        for choice in self.choices:  # the selector may hand back the agent or function itself
            wrapped = (getattr(choice, "agent", None), getattr(choice, "executor", None))
            if item is choice or any(item is w for w in wrapped if w is not None):
                return [choice]
        try:
            return [as_step(item)]
        except TypeError:
            raise RouterSelectionError(
                f"router {self.name!r}: the selector returned {item!r}, which is not a step, "
                "step name, index or bool"
            ) from None

    async def aexecute(self, step_input: StepInput, run: WorkflowRun) -> StepOutput:
        """Select, then run the selected steps in order."""
        if self.cel is not None:
            variables = step_variables(step_input, run.handle.tracker.public_view())
            variables["step_choices"] = [c.name for c in self.choices]
            selection: Any = self.cel.text(variables)
        else:
            selection = await self._select(step_input, run)
        outputs = await run.run_sequence(self.resolve(selection), step_input.previous_step_content)
        content = outputs[-1].content if outputs else step_input.previous_step_content
        return StepOutput(content=content, step_name=self.name, step_type="router", steps=outputs)

    async def _select(self, step_input: StepInput, run: WorkflowRun) -> Any:
        assert callable(self.selector)  # a string selector is self.cel
        try:
            # as in Agno, a selector that declares ``step_choices`` gets the choices
            values = {**run.values(step_input), "step_choices": list(self.choices)}
            return await call_user_function(self.selector, step_input, values)
        finally:
            run.adopt_state()
