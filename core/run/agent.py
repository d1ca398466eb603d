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
from core.run.run_input import RunInput

__all__ = [
    "RunCancelledEvent",
    "RunCompletedEvent",
    "RunContentEvent",
    "RunErrorEvent",
    "RunEvent",
    "RunInput",
    "RunOutput",
    "RunOutputEvent",
    "RunPausedEvent",
    "RunStartedEvent",
    "RunStatus",
    "ToolCallCompletedEvent",
    "ToolCallStartedEvent",
    "ToolExecution",
]
