"""Run-scoped objects: what a tool sees (RunContext) and what a run returns (RunOutput)."""

from core.run.context import RunContext
from core.run.output import RunMetrics, RunOutput, RunStatus, ToolExecution

__all__ = ["RunContext", "RunMetrics", "RunOutput", "RunStatus", "ToolExecution"]
