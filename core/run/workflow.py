"""Agno's ``agno.run.workflow`` path: workflow event names and classes."""

from core.run.events import (
    StepCompletedEvent,
    StepErrorEvent,
    StepStartedEvent,
    WorkflowCompletedEvent,
    WorkflowRunEvent,
    WorkflowStartedEvent,
)
from core.run.output import RunOutput as WorkflowRunOutput

__all__ = [
    "StepCompletedEvent",
    "StepErrorEvent",
    "StepStartedEvent",
    "WorkflowCompletedEvent",
    "WorkflowRunEvent",
    "WorkflowRunOutput",
    "WorkflowStartedEvent",
]
