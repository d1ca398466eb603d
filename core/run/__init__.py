"""Run-scoped objects: what a tool sees (RunContext) and what a run returns (RunOutput)."""

from core.run.context import RunContext
from core.run.output import RunMetrics, RunOutput, ToolExecution

__all__ = ["RunContext", "RunMetrics", "RunOutput", "ToolExecution"]
