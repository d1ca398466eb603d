"""Agno's ``agno.run.workflow`` path: workflow event names and classes.

``WorkflowRunOutputEvent`` is, in Agno, the union of every event a workflow run
streams; here every event (the workflow's, its steps' and its agents') is a
:class:`~core.run.events.RunOutputEvent`, so that class is the name.
"""

from core.run.events import RunOutputEvent as WorkflowRunOutputEvent
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
    "WorkflowRunOutputEvent",
    "WorkflowStartedEvent",
]
