"""Shopping list: case-insensitive items without duplicates (seeds 001, 003)."""

from tools.shopping.agent import AGENT_ID, create_agent, default_state
from tools.shopping.toolkit import TOOL_NAMES, ShoppingListTools
from tools.shopping.tools import add_item, clear_list, list_items, remove_item

__all__ = [
    "AGENT_ID",
    "TOOL_NAMES",
    "ShoppingListTools",
    "add_item",
    "clear_list",
    "create_agent",
    "default_state",
    "list_items",
    "remove_item",
]
