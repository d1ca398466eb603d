"""The Agent, and the names Agno's ``agno.agent`` exports with it."""

from core.agent.agent import Agent
from core.models.base import Message
from core.run.agent import (
    RunCancelledEvent,
    RunCompletedEvent,
    RunContentEvent,
    RunErrorEvent,
    RunEvent,
    RunOutput,
    RunOutputEvent,
    RunPausedEvent,
    RunStartedEvent,
    ToolCallCompletedEvent,
    ToolCallStartedEvent,
)
from core.tools.function import Function
from core.tools.toolkit import Toolkit

__all__ = [
    "Agent",
    "Function",
    "Message",
    "RunCancelledEvent",
    "RunCompletedEvent",
    "RunContentEvent",
    "RunErrorEvent",
    "RunEvent",
    "RunOutput",
    "RunOutputEvent",
    "RunPausedEvent",
    "RunStartedEvent",
    "ToolCallCompletedEvent",
    "ToolCallStartedEvent",
    "Toolkit",
]
