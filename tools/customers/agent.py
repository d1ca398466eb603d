"""The Customer records agent (seed 000): a tool hook does the tool's work."""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.models.base import Model
from tools.customers.hook import customer_management_hook
from tools.customers.schema import SCHEMA_VERSION, CustomerState
from tools.customers.toolkit import CustomerDBTools

AGENT_ID = "customers"

DESCRIPTION = "Customer records for this conversation: create a customer or look one up by id."

INSTRUCTIONS = [
    "Your profiles: {customer_profiles}.",
    "Use `process_customer_request` with action create (needs a name) or retrieve.",
    "If the tool reports an error, tell the user what was wrong; nothing was changed.",
]


def default_state() -> dict[str, Any]:
    """No customers yet."""
    return {"customer_profiles": {}}


def create_agent(
    *, model: Model | None = None, db: BaseDb | None = None, **overrides: Any
) -> Agent:
    """A ready Customer records agent; any Agent argument may be overridden."""
    settings: dict[str, Any] = {
        "id": AGENT_ID,
        "name": "Customer records",
        "description": DESCRIPTION,
        "instructions": list(INSTRUCTIONS),
        "tools": [CustomerDBTools()],
        "tool_hooks": [customer_management_hook],
        "session_state": default_state(),
        "session_state_schema": CustomerState,
        "session_state_schema_version": SCHEMA_VERSION,
        "resolve_in_context": True,
        "markdown": True,
    }
    settings.update(overrides)
    return Agent(model=model, db=db, **settings)
