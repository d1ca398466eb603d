"""Agno's ``agno.run.agent`` path: the agent event names, event classes and RunOutput."""

from core.run.events import (
    RunCancelledEvent,
    RunCompletedEvent,
    RunContentEvent,
    RunErrorEvent,
    RunEvent,
    RunOutputEvent,
    RunPausedEvent,
    RunStartedEvent,
    ToolCallCompletedEvent,
    ToolCallStartedEvent,
)
from core.run.output import RunOutput, RunStatus, ToolExecution

__all__ = [
    "RunCancelledEvent",
    "RunCompletedEvent",
    "RunContentEvent",
    "RunErrorEvent",
    "RunEvent",
    "RunOutput",
    "RunOutputEvent",
    "RunPausedEvent",
    "RunStartedEvent",
    "RunStatus",
    "ToolCallCompletedEvent",
    "ToolCallStartedEvent",
    "ToolExecution",
]
