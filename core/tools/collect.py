"""Turning an agent's ``tools=[...]`` list into a name -> Function table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from core.tools.function import Function
from core.tools.toolkit import Toolkit
from core.utils.log import logger


@runtime_checkable
class LiveToolkit(Protocol):
    """A toolkit whose tools are known only once connected, and may change (MCPTools)."""

    name: str

    async def aready(self, user_id: str | None = None) -> None:
        """Called before each run that offers the tools (connect if no one has); a
        per-user toolkit opens ``user_id``'s connection, or raises
        MCPConnectionRequiredError."""

    def get_async_functions(self) -> dict[str, Function]:
        """The tools as known now."""


def collect_functions(
    tools: Iterable[Any], *, live: list[LiveToolkit] | None = None
) -> dict[str, Function]:
    """Functions by name from callables, Functions and toolkits; duplicates are an error.

    Live toolkits go to ``live`` (their tools are read per run, :func:`with_live_tools`);
    an owner that passes no list cannot offer them and is told so.
    """
    table: dict[str, Function] = {}
    for item in tools:
        found: Iterable[Function]
        if isinstance(item, LiveToolkit):
            if live is None:
                raise TypeError(
                    f"{item.name}: MCP tools are offered by agents; give the toolkit to an "
                    "Agent (a team's member), not to a team or workflow itself"
                )
            live.append(item)
            continue
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


def with_live_tools(
    own: Mapping[str, Function], live: Sequence[LiveToolkit]
) -> dict[str, Function]:
    """``own`` and the live toolkits' tools as known now; a clashing name keeps ``own``'s."""
    table = dict(own)
    for toolkit in live:
        for name, function in toolkit.get_async_functions().items():
            if name in table:
                logger.warning("live_tool_name_taken", toolkit=toolkit.name, tool=name)
                continue
            table[name] = function
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
