"""Turning an agent's ``tools=[...]`` list into a name -> Function table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from core.tools.function import Function
from core.tools.toolkit import Toolkit


def collect_functions(tools: Iterable[Any]) -> dict[str, Function]:
    """Functions by name from callables, Functions and toolkits; duplicates are an error."""
    table: dict[str, Function] = {}
    for item in tools:
        found: Iterable[Function]
        if isinstance(item, Toolkit):  # the async variant of a tool where there is one
            found = item.get_async_functions().values()
        elif isinstance(getattr(item, "functions", None), dict):  # a toolkit-like group
            found = item.functions.values()
        elif isinstance(item, Function) or callable(item):
            found = [Function.from_callable(item)]
        else:
            raise TypeError(f"not a tool: {item!r} (expected a function, Function or Toolkit)")
        for function in found:
            if function.name in table:
                raise ValueError(f"two tools are named {function.name!r}")
            table[function.name] = function
    return table


def agentic_state_function() -> Function:
    """The ``update_session_state`` tool of ``enable_agentic_state=True``."""
    from core.state.merge import apply_merge_patch

    def update_session_state(session_state: dict[str, Any], updates: dict[str, Any]) -> str:
        """Change the session state with a JSON merge patch (RFC 7386).

        Args:
            updates: Keys to set; nested objects merge; a null value deletes the key.
        """
        apply_merge_patch(session_state, updates)
        return "Session state updated."

    return Function(update_session_state)
