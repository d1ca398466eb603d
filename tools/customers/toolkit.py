"""CustomerDBTools: the tool the model calls to create or look up a customer (seed 000)."""

from __future__ import annotations

from typing import Any, Literal

from core.tools.toolkit import Toolkit
from tools.customers.hook import TOOL_NAME


class CustomerHookMissingError(RuntimeError):
    """The tool ran without ``customer_management_hook`` in the agent's tool hooks."""


class CustomerDBTools(Toolkit):
    """One tool, ``process_customer_request``, whose work is done by a tool hook."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("name", "customer_db")
        super().__init__(**kwargs)
        self.register(self.process_customer_request, name=TOOL_NAME)

    def process_customer_request(
        self,
        customer_id: str,
        action: Literal["create", "retrieve"] = "retrieve",
        name: str | None = None,
    ) -> str:
        """Create a customer profile or retrieve one by id.

        Args:
            customer_id: The customer's id, e.g. "789".
            action: "create" to add a new customer, "retrieve" to read a profile.
            name: The customer's name; required when the action is "create".
        """
        # the hook short-circuits every call; reaching this body means it was not installed
        raise CustomerHookMissingError(
            f"{TOOL_NAME} is handled by customer_management_hook; add it to the agent's tool_hooks"
        )
