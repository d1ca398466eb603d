"""The shopping list as plain data for chat cards (``bots.cards`` renders it)."""

from __future__ import annotations

from typing import Any

from tools.shopping.tools import _items


def list_lines(session_state: dict[str, Any]) -> list[str]:
    """The items on the list, in the order they were added."""
    return [str(item) for item in _items(session_state)]
