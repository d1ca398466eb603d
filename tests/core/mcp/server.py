"""A small MCP server for the tests, written with the official SDK (``MCPServer``).

Run as a script it serves stdio (``python server.py``) or streamable HTTP
(``python server.py http PORT``). ``TEST_MCP_GREETING`` in its environment changes
``greet``'s answer, so a test can see the configured env reach the process.
"""

from __future__ import annotations

import base64
import os
import sys

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

#: a 1x1 PNG
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

server = MCPServer("test-server")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"{os.environ.get('TEST_MCP_GREETING', 'Hello')}, {name}!"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason given."""
    raise ToolError(f"cannot do that: {reason}")


@server.tool()
async def hang(seconds: float) -> str:
    """Sleeps (longer than any test waits)."""
    await anyio.sleep(seconds)
    return "woke up"


@server.tool()
def picture() -> Image:
    """Returns a tiny PNG."""
    return Image(data=PIXEL, format="png")


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header (empty over stdio)."""
    return (ctx.headers or {}).get(name.lower(), "")


@server.tool()
def crash() -> str:
    """Ends the server process at once (a dropped connection)."""
    os._exit(3)


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Adds a tool named ``name`` and tells the client the list changed."""

    def added() -> str:
        return f"{name} was added"

    server.add_tool(added, name=name, description=f"A tool added at run time: {name}")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
