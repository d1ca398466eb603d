"""The tools an agent offers now: its own table, then its live toolkits' (MCP servers)."""

from __future__ import annotations

from typing import Any

from core.tools.collect import LiveToolkit, collect_functions, with_live_tools
from core.tools.function import Function

__all__ = ["ToolTableMethods"]


class ToolTableMethods:
    """``functions`` (read per use, so a live toolkit's relisting shows) and ``add_tool``."""

    live_toolkits: list[LiveToolkit]
    _own_functions: dict[str, Function]

    @property
    def functions(self) -> dict[str, Function]:
        """The tools offered now: the agent's own, then its live toolkits' as last listed."""
        live = getattr(self, "live_toolkits", ())  # set once the base class has built
        if not live:
            return self._own_functions
        return with_live_tools(self._own_functions, live)

    @functions.setter
    def functions(self, table: dict[str, Function]) -> None:
        self._own_functions = table

    def add_tool(self, tool: Any) -> None:
        """Add a tool, Function or toolkit (an MCPTools too) after construction (Agno's)."""
        table = collect_functions([tool], live=self.live_toolkits)
        taken = sorted(set(table) & set(self._own_functions))
        if taken:
            raise ValueError(f"two tools are named {', '.join(map(repr, taken))}")
        self._own_functions = {**self._own_functions, **table}
