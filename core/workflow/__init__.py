"""Workflows: agents, teams and functions run as steps on one shared session state."""

# errors live in core.exceptions; these two names stay importable from here too
from core.exceptions import ParallelStateConflictError as ParallelStateConflictError
from core.exceptions import RouterSelectionError as RouterSelectionError
from core.workflow.cel import CEL_AVAILABLE, validate_cel_expression
from core.workflow.condition import Condition
from core.workflow.loop import Loop
from core.workflow.parallel import Parallel
from core.workflow.router import Router
from core.workflow.step import Step
from core.workflow.steps import Steps
from core.workflow.types import StepInput, StepOutput
from core.workflow.workflow import Workflow

__all__ = [
    "CEL_AVAILABLE",
    "Condition",
    "Loop",
    "Parallel",
    "Router",
    "Step",
    "StepInput",
    "StepOutput",
    "Steps",
    "Workflow",
    "validate_cel_expression",
]
