"""Workflows: agents, teams and functions run as steps on one shared session state."""

from core.exceptions import ParallelStateConflictError, RouterSelectionError
from core.workflow.condition import Condition
from core.workflow.loop import Loop
from core.workflow.parallel import Parallel
from core.workflow.router import Router
from core.workflow.step import Step
from core.workflow.types import StepInput, StepOutput
from core.workflow.workflow import Workflow

__all__ = [
    "Condition",
    "Loop",
    "Parallel",
    "ParallelStateConflictError",
    "Router",
    "RouterSelectionError",
    "Step",
    "StepInput",
    "StepOutput",
    "Workflow",
]
