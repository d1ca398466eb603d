"""ShoppingListTools: the four shopping list tools as one toolkit."""

from __future__ import annotations

from typing import Any

from core.tools.toolkit import Toolkit
from tools.shopping.tools import add_item, clear_list, list_items, remove_item

TOOL_NAMES: tuple[str, ...] = ("add_item", "remove_item", "list_items", "clear_list")


class ShoppingListTools(Toolkit):
    """add_item, remove_item, list_items and clear_list."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("name", "shopping_list")
        super().__init__(**kwargs)
        for fn in (add_item, remove_item, list_items, clear_list):
            self.register(fn)
