"""An MCP server that is its own OAuth 2.1 authorization server, for the tests.

Written with the official SDK's authorization-server support (``auth_server_provider=``):
metadata discovery, dynamic client registration, ``/authorize`` with PKCE, ``/token``.
Authorization is approved at once for the person ``TEST_OAUTH_SUBJECT`` (no login
page: the test plays the browser), so a code comes back on the client's redirect URI.
``whoami`` answers whose token the call carried. Run as ``python oauth_server.py PORT``.
"""

from __future__ import annotations

import os
import secrets
import sys
import time

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SUBJECT = os.environ.get("TEST_OAUTH_SUBJECT", "carol")


class ApproveAll:
    """An in-memory authorization server that approves every request for SUBJECT."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
            subject=SUBJECT,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.tokens.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(
        self, client: OAuthClientInformationFull, scopes: list[str], resource: str | None
    ) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(12)}", f"rt-{secrets.token_urlsafe(12)}"
        client_id = client.client_id or ""
        self.tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + 3600,
            resource=resource, subject=SUBJECT,
        )  # fmt: skip
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource, subject=SUBJECT
        )
        return OAuthToken(access_token=access, expires_in=3600, refresh_token=refresh)


def build(port: int) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "oauth-server",
        auth_server_provider=ApproveAll(),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(enabled=True),
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Whose token this call carries."""
        token = get_access_token()
        return f"{token.subject} (oauth)" if token else "nobody"

    return server


if __name__ == "__main__":
    port = int(sys.argv[1])
    build(port).run("streamable-http", host="127.0.0.1", port=port)
