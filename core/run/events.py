"""Events of a streamed run, with Agno's names (``agno.run.agent.RunEvent`` and friends).

``run(stream=True)`` yields :class:`RunContentEvent` chunks and one final
:class:`RunCompletedEvent`; with ``stream_events=True`` the stream also reports the
run's lifecycle: started, tool calls, member and step runs, completed (carrying
``session_state``), paused, error, cancelled. Every event has ``event`` (its Agno name,
comparable with the enums below), the ids of the run and of who emitted it, and
``content``. The final event of the run carries the whole ``run_output``.

Team events use the ``Team...`` names and workflow events the ``Workflow...`` /
``Step...`` names, as in Agno; the classes are shared (a team's completed event is a
``RunCompletedEvent`` whose ``event`` is ``"TeamRunCompleted"``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from core.run.output import RunMetrics, RunOutput, ToolExecution


class RunEvent(StrEnum):
    """Agent event names."""

    run_started = "RunStarted"
    run_content = "RunContent"
    run_completed = "RunCompleted"
    run_paused = "RunPaused"
    run_error = "RunError"
    run_cancelled = "RunCancelled"
    tool_call_started = "ToolCallStarted"
    tool_call_completed = "ToolCallCompleted"


class TeamRunEvent(StrEnum):
    """Team event names."""

    run_started = "TeamRunStarted"
    run_content = "TeamRunContent"
    run_completed = "TeamRunCompleted"
    run_paused = "TeamRunPaused"
    run_error = "TeamRunError"
    run_cancelled = "TeamRunCancelled"
    tool_call_started = "TeamToolCallStarted"
    tool_call_completed = "TeamToolCallCompleted"


class WorkflowRunEvent(StrEnum):
    """Workflow event names."""

    workflow_started = "WorkflowStarted"
    workflow_completed = "WorkflowCompleted"
    workflow_paused = "WorkflowPaused"
    workflow_error = "WorkflowError"
    workflow_cancelled = "WorkflowCancelled"
    step_started = "StepStarted"
    step_completed = "StepCompleted"
    step_error = "StepError"


@dataclass(slots=True, kw_only=True)
class RunOutputEvent:
    """What every event carries: its name, who emitted it, for which run."""

    event: str = ""
    created_at: int = field(default_factory=lambda: int(time.time()))
    run_id: str | None = None
    session_id: str | None = None
    agent_id: str | None = None
    agent_name: str | None = None
    team_id: str | None = None
    team_name: str | None = None
    workflow_id: str | None = None
    workflow_name: str | None = None
    #: the workflow step this event happened in, if any
    step_name: str | None = None
    content: Any = None
    #: the whole output, on the last event of the run (completed or paused)
    run_output: RunOutput | None = None

    @property
    def is_final(self) -> bool:
        """True for the event that ends the run and carries its ``run_output``."""
        return self.run_output is not None


@dataclass(slots=True, kw_only=True)
class RunStartedEvent(RunOutputEvent):
    """A run (agent, team leader, member) began; ``model`` names its model."""

    event: str = RunEvent.run_started.value
    model: str | None = None


@dataclass(slots=True, kw_only=True)
class RunContentEvent(RunOutputEvent):
    """A chunk of answer text."""

    event: str = RunEvent.run_content.value


@dataclass(slots=True, kw_only=True)
class ToolCallStartedEvent(RunOutputEvent):
    """A tool call is about to run: ``tool`` has its name and arguments, no result yet."""

    event: str = RunEvent.tool_call_started.value
    tool: ToolExecution | None = None


@dataclass(slots=True, kw_only=True)
class ToolCallCompletedEvent(RunOutputEvent):
    """A tool call finished: ``tool.result`` (also ``content``) is what the model gets."""

    event: str = RunEvent.tool_call_completed.value
    tool: ToolExecution | None = None


@dataclass(slots=True, kw_only=True)
class RunCompletedEvent(RunOutputEvent):
    """A run finished; ``session_state`` is the state it left (saved, for the top run)."""

    event: str = RunEvent.run_completed.value
    session_state: dict[str, Any] | None = None
    metrics: RunMetrics | None = None


@dataclass(slots=True, kw_only=True)
class RunPausedEvent(RunOutputEvent):
    """The run stopped to wait for confirmation of the listed tool calls."""

    event: str = RunEvent.run_paused.value
    tools: list[ToolExecution] = field(default_factory=list)
    session_state: dict[str, Any] | None = None

    @property
    def is_paused(self) -> bool:
        """Always True (Agno's spelling)."""
        return True


@dataclass(slots=True, kw_only=True)
class RunErrorEvent(RunOutputEvent):
    """The run failed; ``content`` is the message and ``error_type`` the exception's class."""

    event: str = RunEvent.run_error.value
    error_type: str | None = None


@dataclass(slots=True, kw_only=True)
class RunCancelledEvent(RunOutputEvent):
    """The run was cancelled before it finished."""

    event: str = RunEvent.run_cancelled.value
    reason: str | None = None


@dataclass(slots=True, kw_only=True)
class WorkflowStartedEvent(RunStartedEvent):
    """A workflow run began."""

    event: str = WorkflowRunEvent.workflow_started.value


@dataclass(slots=True, kw_only=True)
class WorkflowCompletedEvent(RunCompletedEvent):
    """A workflow run finished; ``content`` is its last step's content."""

    event: str = WorkflowRunEvent.workflow_completed.value


@dataclass(slots=True, kw_only=True)
class StepStartedEvent(RunOutputEvent):
    """A workflow step is about to run."""

    event: str = WorkflowRunEvent.step_started.value


@dataclass(slots=True, kw_only=True)
class StepCompletedEvent(RunOutputEvent):
    """A workflow step finished and its changes were saved; ``content`` is its content."""

    event: str = WorkflowRunEvent.step_completed.value
    step_output: Any = None


@dataclass(slots=True, kw_only=True)
class StepErrorEvent(RunOutputEvent):
    """A workflow step failed; its changes were undone. ``content`` is the message."""

    event: str = WorkflowRunEvent.step_error.value
    error_type: str | None = None
