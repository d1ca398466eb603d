"""CEL expressions as Condition evaluators, Router selectors and Loop end conditions.

As in Agno, a *string* in those places is a CEL (Common Expression Language)
expression, evaluated with the optional ``cel-python`` package (``pip install
'statebot[cel]'``; :data:`CEL_AVAILABLE` says whether it is installed). The
expression sees the same variables as in Agno:

- Condition and Router: ``input`` (the workflow input, text), ``previous_step_content``
  (text), ``previous_step_outputs`` (step name → content text), ``additional_data``
  (always empty here) and ``session_state``; a Router also sees ``step_choices`` (the
  choices' names) and must return a choice's name.
- Loop: ``current_iteration`` (1 after the first), ``max_iterations``, ``all_success``,
  ``last_step_content`` and ``step_outputs`` (step name → content text) of the
  iteration just finished.

Unlike Agno, which logs and carries on as if the condition were false, a CEL string
without the package is refused when the step is built, an expression that does not
parse is refused there too, and one that fails while running ends the run with a
ValueError naming the expression (the state goes back to before the step).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

try:
    import celpy
    from celpy import celtypes

    CEL_AVAILABLE = True
except ImportError:  # the optional extra is not installed
    CEL_AVAILABLE = False

if TYPE_CHECKING:
    from core.workflow.types import StepInput, StepOutput

__all__ = ["CEL_AVAILABLE", "CelExpression", "validate_cel_expression"]

_MISSING = (
    "CEL expressions need the optional cel-python package: pip install 'statebot[cel]' "
    "(or pip install 'cel-python~=0.5.0')"
)


def validate_cel_expression(expression: str) -> bool:
    """True when ``expression`` parses as CEL (False without the package, as in Agno)."""
    if not CEL_AVAILABLE:
        return False
    try:
        celpy.Environment().compile(expression)
    except Exception:  # cel-python's parse errors share no base class but Exception
        return False
    return True


class CelExpression:
    """One compiled CEL expression; ``where`` names its place in error messages."""

    __slots__ = ("expression", "program", "where")

    def __init__(self, expression: str, where: str) -> None:
        if not CEL_AVAILABLE:
            raise ImportError(f"{where}: {expression!r} is a CEL expression; {_MISSING}")
        self.expression = expression
        self.where = where
        env = celpy.Environment()
        try:
            self.program = env.program(env.compile(expression))
        except Exception as exc:
            raise ValueError(
                f"{where}: {expression!r} is not a valid CEL expression: {exc}"
            ) from exc

    def evaluate(self, variables: Mapping[str, Any]) -> Any:
        """The expression's value (a CEL value) over ``variables`` (plain Python data)."""
        try:
            result = self.program.evaluate({k: _to_cel(v) for k, v in variables.items()})
        except Exception as exc:
            raise ValueError(f"{self.where}: CEL {self.expression!r} failed: {exc}") from exc
        if isinstance(result, celpy.CELEvalError):  # some errors come back as values
            raise ValueError(f"{self.where}: CEL {self.expression!r} failed: {result.args[0]}")
        return result

    def truth(self, variables: Mapping[str, Any]) -> bool:
        """The expression's value as a bool."""
        return bool(self.evaluate(variables))

    def text(self, variables: Mapping[str, Any]) -> str:
        """The expression's value as text (a Router's choice name)."""
        return str(self.evaluate(variables))


def step_variables(step_input: StepInput, session_state: Mapping[str, Any]) -> dict[str, Any]:
    """What a Condition's or Router's expression sees."""
    previous = step_input.previous_step_content
    return {
        "input": step_input.get_input_as_string() or "",
        "previous_step_content": "" if previous is None else _text(previous),
        "previous_step_outputs": {
            name: str(out.content) if out.content else ""
            for name, out in step_input.previous_step_outputs.items()
        },
        "additional_data": {},
        "session_state": session_state,
    }


def loop_variables(
    outputs: Sequence[StepOutput], iteration: int, max_iterations: int
) -> dict[str, Any]:
    """What a Loop's end condition sees, after iteration number ``iteration`` (from 1)."""
    contents = {
        out.step_name or f"step_{index}": str(out.content) if out.content else ""
        for index, out in enumerate(outputs)
    }
    last = outputs[-1] if outputs else None
    return {
        "current_iteration": iteration,
        "max_iterations": max_iterations,
        "all_success": all(out.success for out in outputs),
        "last_step_content": str(last.content) if last is not None and last.content else "",
        "step_outputs": contents,
    }


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    dump = getattr(value, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    if isinstance(value, dict):
        return json.dumps(value, default=str)
    return str(value)


def _to_cel(value: Any) -> Any:
    """Plain Python data as CEL values (anything else as its text)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return celtypes.BoolType(value)
    if isinstance(value, int):
        return celtypes.IntType(value)
    if isinstance(value, float):
        return celtypes.DoubleType(value)
    if isinstance(value, str):
        return celtypes.StringType(value)
    if isinstance(value, list | tuple):
        return celtypes.ListType([_to_cel(item) for item in value])
    if isinstance(value, Mapping):
        return celtypes.MapType({celtypes.StringType(str(k)): _to_cel(v) for k, v in value.items()})
    return celtypes.StringType(str(value))
