"""The Shopping list agent (seeds 001, 003): one shared list per chat session."""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.models.base import Model
from tools.shopping.schema import SCHEMA_VERSION, ShoppingState
from tools.shopping.toolkit import ShoppingListTools

AGENT_ID = "shopping"

DESCRIPTION = "A shared shopping list for this conversation: add, remove, list and clear items."

INSTRUCTIONS = [
    "Your job is to manage a shopping list.",
    "Add items, remove items by name, list them or clear the list, always with your tools.",
    "When a message names several items, call the tool once per item.",
    "Current shopping list: {shopping_list}",
]


def default_state() -> dict[str, Any]:
    """A fresh, empty shopping list."""
    return {"shopping_list": []}


def create_agent(
    *, model: Model | None = None, db: BaseDb | None = None, **overrides: Any
) -> Agent:
    """A ready Shopping list agent; any Agent argument may be overridden."""
    settings: dict[str, Any] = {
        "id": AGENT_ID,
        "name": "Shopping list",
        "description": DESCRIPTION,
        "instructions": list(INSTRUCTIONS),
        "tools": [ShoppingListTools()],
        "session_state": default_state(),
        "session_state_schema": ShoppingState,
        "session_state_schema_version": SCHEMA_VERSION,
        # the list is already in the instructions; the whole state would repeat it
        "add_session_state_to_context": False,
        "markdown": True,
    }
    settings.update(overrides)
    return Agent(model=model, db=db, **settings)
