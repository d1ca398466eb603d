"""Shopping list tools: a list of item names in ``session_state["shopping_list"]``.

Items keep the spelling they were added with; matching ignores case and surrounding
spaces, so "Milk" and " milk " are the same item and never appear twice.
"""

from __future__ import annotations

from typing import Any

STATE_KEY = "shopping_list"


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the shopping list (ignored if it is already there).

    Args:
        item: The item to add, e.g. "milk".
    """
    name = _clean(item)
    if not name:
        return "An item needs a name. Nothing was changed."
    existing = _find(session_state, name)
    if existing is not None:
        return f"'{existing}' is already on the shopping list."
    session_state.setdefault(STATE_KEY, []).append(name)
    return f"Added '{name}' to the shopping list."


def remove_item(session_state: dict[str, Any], item: str) -> str:
    """Remove an item from the shopping list by name (case does not matter).

    Args:
        item: The item to remove.
    """
    name = _clean(item)
    existing = _find(session_state, name) if name else None
    if existing is None:
        if not _items(session_state):
            return f"The shopping list is empty, so '{name}' cannot be removed."
        return f"'{name}' is not on the shopping list. It has: {', '.join(_items(session_state))}."
    session_state[STATE_KEY].remove(existing)
    return f"Removed '{existing}' from the shopping list."


def is_not_listed(reply: str) -> bool:
    """True when ``remove_item``'s reply says the item was not on the list."""
    return (
        reply.startswith("The shopping list is empty, so ")
        or " is not on the shopping list." in reply
    )


def list_items(session_state: dict[str, Any]) -> str:
    """Show everything on the shopping list."""
    items = _items(session_state)
    if not items:
        return "The shopping list is empty."
    return "\n".join([f"Shopping list ({len(items)}):", *(f"- {item}" for item in items)])


def clear_list(session_state: dict[str, Any]) -> str:
    """Remove every item from the shopping list."""
    count = len(_items(session_state))
    if count == 0:
        return "The shopping list is already empty."
    session_state[STATE_KEY] = []
    noun = "item" if count == 1 else "items"
    return f"Cleared the shopping list ({count} {noun} removed)."


def _clean(item: object) -> str:
    return " ".join(str(item).split())


def _items(session_state: dict[str, Any]) -> list[str]:
    items = session_state.get(STATE_KEY)
    return items if isinstance(items, list) else []


def _find(session_state: dict[str, Any], name: str) -> str | None:
    wanted = name.casefold()
    return next((i for i in _items(session_state) if _clean(i).casefold() == wanted), None)
