"""A per-user MCP server for the tests: every request needs a bearer token it knows.

Written with the official SDK's resource-server support (``token_verifier=`` and
``AuthSettings``): a request without a known token gets HTTP 401 from the SDK's
bearer middleware before any tool runs. ``whoami`` answers whose token the call
carried. Run as ``python user_server.py PORT``; the tokens are ``TOKENS`` below.
"""

from __future__ import annotations

import sys

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

#: the bearer tokens this server accepts, and whose they are
TOKENS = {"tok-alice-1": "alice", "tok-bob-1": "bob", "tok-alice-2": "alice"}


class Verifier:
    """Accepts the tokens of ``TOKENS`` only."""

    async def verify_token(self, token: str) -> AccessToken | None:
        owner = TOKENS.get(token)
        if owner is None:
            return None
        return AccessToken(token=token, client_id="statebot", scopes=[], subject=owner)


def build(port: int) -> MCPServer:
    url = f"http://127.0.0.1:{port}/mcp"
    server = MCPServer(
        "user-server",
        token_verifier=Verifier(),
        auth=AuthSettings(
            issuer_url="http://127.0.0.1:9/",
            resource_server_url=url,
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Whose token this call carries."""
        token = get_access_token()
        return f"{token.subject} ({token.token})" if token else "nobody"

    return server


if __name__ == "__main__":
    port = int(sys.argv[1])
    build(port).run("streamable-http", host="127.0.0.1", port=port)
