"""MCP servers' tools for agents (Agno's ``agno.tools.mcp``): :class:`MCPTools`.

See docs/mcp.md. Built on the official ``mcp`` SDK's client session, over stdio and
streamable HTTP.
"""

from core.tools.mcp.mcp import MCPTools
from core.tools.mcp.params import StreamableHTTPClientParams

__all__ = ["MCPTools", "StreamableHTTPClientParams"]
