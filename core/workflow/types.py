"""What a workflow step receives (StepInput) and what it returns (StepOutput)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


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
    """Step content as text: strings as-is, other values as JSON."""
    if isinstance(content, str):
        return content
    try:
        return json.dumps(content, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(content)
