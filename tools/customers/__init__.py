"""Customer records kept by a tool hook (seed 000)."""

from tools.customers.agent import AGENT_ID, create_agent, default_state
from tools.customers.hook import CustomerRequestError, customer_management_hook
from tools.customers.toolkit import CustomerDBTools, CustomerHookMissingError

__all__ = [
    "AGENT_ID",
    "CustomerDBTools",
    "CustomerHookMissingError",
    "CustomerRequestError",
    "create_agent",
    "customer_management_hook",
    "default_state",
]
