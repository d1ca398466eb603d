"""Connection parameters for a streamable-HTTP MCP server (Agno's ``StreamableHTTPClientParams``).

The stdio transport takes the SDK's own ``mcp.StdioServerParameters``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

__all__ = ["StreamableHTTPClientParams"]


@dataclass
class StreamableHTTPClientParams:
    """Where a streamable-HTTP server listens and how to reach it."""

    url: str
    #: sent with every request (an ``Authorization`` header, say)
    headers: dict[str, str] | None = None
    #: connect, write and pool timeout of the HTTP client
    timeout: timedelta | None = timedelta(seconds=30)
    #: how long a response stream may stay silent
    sse_read_timeout: timedelta | None = timedelta(seconds=60 * 5)
    #: end the server's session (HTTP DELETE) when the connection closes; None: yes
    terminate_on_close: bool | None = None
