"""The shopping list as a workflow (seed 003): the assistant edits, then the list is shown.

Step one is the Shopping list agent (the model turns the request into tool calls);
step two is a plain function that reports the list from the workflow's session state,
so every answer ends with the list as it now is, whatever the model said.
"""

from __future__ import annotations

from typing import Any

from core.db.base import BaseDb
from core.models.base import Model
from core.run import RunContext
from core.workflow import Step, Workflow
from tools.shopping.agent import create_agent, default_state
from tools.shopping.schema import SCHEMA_VERSION, ShoppingState
from tools.shopping.tools import list_items

WORKFLOW_ID = "shopping-flow"


def show_list(run_context: RunContext) -> str:
    """The shopping list as it is after the assistant's step."""
    return list_items(run_context.session_state)


def create_workflow(
    *, model: Model | None = None, db: BaseDb | None = None, **overrides: Any
) -> Workflow:
    """A ready shopping workflow sharing one session state between its steps."""
    settings: dict[str, Any] = {
        "id": WORKFLOW_ID,
        "description": "The shopping list as a workflow: edit the list, then show it.",
        "steps": [
            Step(name="manage_items", agent=create_agent(model=model, db=db)),
            Step(name="show_list", executor=show_list),
        ],
        "session_state": default_state(),
        "session_state_schema": ShoppingState,
        "session_state_schema_version": SCHEMA_VERSION,
    }
    settings.update(overrides)
    return Workflow(name="Shopping workflow", db=db, **settings)
