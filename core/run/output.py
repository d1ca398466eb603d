"""RunOutput: what ``run()`` / ``arun()`` return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.models.base import Message


@dataclass(slots=True)
class ToolExecution:
    """One tool call made during a run, with its result."""

    tool_call_id: str
    tool_name: str
    tool_args: dict[str, Any]
    result: str
    error: bool = False


@dataclass(slots=True)
class RunMetrics:
    """Counts of one run."""

    model_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0


@dataclass(slots=True)
class RunOutput:
    """The result of one run of an agent, team or workflow."""

    run_id: str
    session_id: str
    user_id: str | None
    content: str | None = None
    session_state: dict[str, Any] = field(default_factory=dict)
    tools: list[ToolExecution] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    metrics: RunMetrics = field(default_factory=RunMetrics)
    #: workflow step outputs, by step name, in order of execution
    step_outputs: dict[str, Any] = field(default_factory=dict)
    #: name of the agent/team/workflow that produced it
    agent_id: str | None = None
