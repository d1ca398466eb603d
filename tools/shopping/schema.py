"""The shopping list's session state as a type (``session_state_schema`` of its agent
and workflow): item names as added, in order. Keys it does not name are kept unchecked
(another agent may share the chat thread's session)."""

from __future__ import annotations

from pydantic import BaseModel

#: the schema version of the state the code writes
SCHEMA_VERSION = 1


class ShoppingState(BaseModel):
    """The list, under ``shopping_list`` (tools.shopping.tools.STATE_KEY)."""

    shopping_list: list[str] = []
