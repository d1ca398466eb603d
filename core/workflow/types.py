"""What a workflow step receives (StepInput) and what it returns (StepOutput)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from core.workflow.history import HistoryPair, history_context, last_runs


@dataclass(slots=True)
class StepOutput:
    """The result of one step; ``stop=True`` ends the workflow after this step."""

    content: Any = None
    step_name: str | None = None
    step_type: str = "step"
    success: bool = True
    error: str | None = None
    stop: bool = False
    #: outputs of the steps inside a Condition, Router, Loop or Parallel
    steps: list[StepOutput] = field(default_factory=list)


@dataclass(slots=True)
class StepInput:
    """The workflow input plus what earlier steps produced."""

    input: str | None = None
    previous_step_content: Any = None
    #: outputs of the steps run so far in this run, by step name (latest run wins)
    previous_step_outputs: dict[str, StepOutput] = field(default_factory=dict)
    #: the session's earlier completed runs as (input, output), oldest first
    workflow_history: list[HistoryPair] = field(default_factory=list)

    def get_input_as_string(self) -> str | None:
        """The workflow input as text (None without one)."""
        return None if self.input is None else content_text(self.input)

    def get_workflow_history(self, num_runs: int | None = None) -> list[HistoryPair]:
        """The last ``num_runs`` earlier runs of this session as (input, output) pairs
        (all of them for None); what a function step needs to build its own context."""
        return last_runs(self.workflow_history, num_runs)

    def get_workflow_history_context(self, num_runs: int | None = None) -> str | None:
        """Those runs in Agno's ``<workflow_history_context>`` block (None: no runs)."""
        return history_context(self.workflow_history, num_runs)

    def get_step_output(self, step_name: str) -> StepOutput | None:
        """The output of an earlier step, or None."""
        return self.previous_step_outputs.get(step_name)

    def get_step_content(self, step_name: str) -> Any:
        """The content of an earlier step, or None."""
        output = self.previous_step_outputs.get(step_name)
        return None if output is None else output.content

    def get_last_step_content(self) -> Any:
        """The content of the step that ran just before this one."""
        return self.previous_step_content

    def get_all_previous_content(self) -> str:
        """Every earlier step's content, labelled by step name."""
        return "\n\n".join(
            f"=== {name} ===\n{content_text(output.content)}"
            for name, output in self.previous_step_outputs.items()
            if output.content is not None
        )


def content_text(content: Any) -> str:
    """Step content as text: strings as-is, other values as JSON (a pydantic model as
    Agno sends one to an agent: indented, without unset optional fields)."""
    if isinstance(content, str):
        return content
    if isinstance(content, BaseModel):
        return content.model_dump_json(indent=2, exclude_none=True)
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)
