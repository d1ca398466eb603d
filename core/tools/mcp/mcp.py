"""MCPTools: an MCP server's tools as a toolkit (Agno's ``agno.tools.mcp.MCPTools``).

    async with MCPTools(command="python my_server.py") as tools:       # stdio
        agent = Agent(model=..., tools=[tools])
    tools = MCPTools(url="http://127.0.0.1:8000/mcp")                  # streamable HTTP
    await tools.connect(); ...; await tools.close()

The tools are listed once per connection and again when the server says its list
changed; the agent offers whatever was listed last (:mod:`core.tools.mcp.connection`).
Each call is an ordinary tool call of the run: bounded by ``timeout_seconds`` or else
the agent's ``tool_timeout``, counted by budgets, its failures — an error result, an
error answer, a timeout, a lost connection — reported to the model as the call's
error (:mod:`core.tools.mcp.results`). An MCPTools that no code connected is connected
by the first run that offers it, and stays connected for later runs until
:meth:`MCPTools.close`.

``per_user=True`` (streamable HTTP only) makes a server act as the asking user: no
shared connection, one per user, each sending that user's own credential as a bearer
token (:mod:`core.tools.mcp.per_user`); a user who has not connected it gets the
``/connect`` hint as the run's answer.

Not supported (refused, not ignored): the deprecated SSE transport, a ready
``session=``, per-run ``header_provider`` connections.
"""

from __future__ import annotations

import contextlib
import shlex
import sys
from collections.abc import AsyncIterator, Iterable
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx2
from mcp import StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from core.exceptions import MCPConnectionError, ToolRefusedError
from core.run.context import RunContext
from core.tools.function import Function
from core.tools.mcp.connection import MCPConnection
from core.tools.mcp.oauth import OAuthFlows, OAuthStore
from core.tools.mcp.params import StreamableHTTPClientParams
from core.tools.mcp.per_user import CredentialSource, UserConnections
from core.tools.mcp.results import tool_result
from core.tools.result import ToolResult
from core.tools.toolkit import Toolkit
from core.utils.log import logger

__all__ = ["MCPTools"]

Transport = Literal["stdio", "streamable-http"]


class MCPTools(Toolkit):
    """The tools of one MCP server, over stdio (``command=``) or streamable HTTP (``url=``)."""

    def __init__(
        self,
        command: str | None = None,
        *,
        name: str | None = None,
        url: str | None = None,
        env: dict[str, str] | None = None,
        transport: str | None = None,
        server_params: StdioServerParameters | StreamableHTTPClientParams | None = None,
        timeout_seconds: float | None = None,
        connect_timeout: float = 30.0,
        include_tools: Iterable[str] | None = None,
        exclude_tools: Iterable[str] | None = None,
        tool_name_prefix: str | None = None,
        requires_confirmation_tools: Iterable[str] | None = None,
        stop_after_tool_call_tools: Iterable[str] | None = None,
        show_result_tools: Iterable[str] | None = None,
        instructions: str | None = None,
        add_instructions: bool = False,
        per_user: bool = False,
        credentials: CredentialSource | None = None,
        oauth_redirect_url: str | None = None,
        oauth_client_name: str = "Statebot",
    ) -> None:
        """``timeout_seconds``: the bound of each call (None: the agent's ``tool_timeout``);
        ``connect_timeout``: of opening the connection and each listing. ``per_user``:
        act as the run's user, with their credential from ``credentials``
        (``core.governance.credentials.McpCredentials``); ``oauth_redirect_url``: users
        may also connect by OAuth 2.1 (:mod:`core.tools.mcp.oauth`), the authorization
        server redirecting back there (the web app's ``/mcp/oauth/callback``)."""
        self.transport: Transport = _transport_of(transport, url, server_params)
        self.server_params = _params_of(self.transport, command, url, env, server_params)
        if timeout_seconds is not None and not timeout_seconds > 0:
            raise ValueError(f"timeout_seconds must be positive, not {timeout_seconds!r}")
        super().__init__(
            name=name or _default_name(self.server_params),
            instructions=instructions,
            add_instructions=add_instructions,
            requires_confirmation_tools=requires_confirmation_tools,
            stop_after_tool_call_tools=stop_after_tool_call_tools,
            show_result_tools=show_result_tools,
        )
        # set after the base: the names are checked against the server's listing
        self.include_tools = list(include_tools) if include_tools is not None else None
        self.exclude_tools = list(exclude_tools) if exclude_tools is not None else None
        self.tool_name_prefix = tool_name_prefix
        self.timeout_seconds = timeout_seconds
        #: the server's tools as last listed (before include/exclude)
        self.server_tools: list[types.Tool] = []
        self.connection = MCPConnection(
            self.name, self._open_transport, self._listed, connect_timeout=connect_timeout
        )
        self.per_user = per_user
        #: per-user servers: each user's own connection (None: one shared connection)
        self.users: UserConnections | None = None
        if per_user:
            if self.transport != "streamable-http":
                raise ValueError("per_user=True needs a streamable-HTTP server (url=)")
            if credentials is None:
                raise ValueError("per_user=True needs credentials= (where users' tokens are)")
            self.users = UserConnections(
                self.name,
                credentials,
                self._transport_for_user,
                self._listed,
                connect_timeout=connect_timeout,
            )

        #: OAuth authorizations of users (None: tokens are pasted only)
        self.oauth: OAuthFlows | None = None
        if oauth_redirect_url is not None:
            if self.users is None or not isinstance(credentials, OAuthStore):
                raise ValueError("oauth_redirect_url is for per_user=True servers")
            assert isinstance(self.server_params, StreamableHTTPClientParams)
            self.oauth = OAuthFlows(
                self.name,
                self.server_params.url,
                credentials,
                redirect_url=oauth_redirect_url,
                client_name=oauth_client_name,
            )

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def initialized(self) -> bool:
        """Connected now, its tools listed (Agno's name)."""
        return self.connection.connected

    async def connect(self, force: bool = False) -> None:
        """Open the connection (kept open, reopened with backoff, until :meth:`close`).

        As in Agno, a server that cannot be reached is logged, not raised: its tools are
        offered once a later attempt lists them. ``force``: close and open again.
        """
        if self.users is not None:
            return  # per user: each user's connection opens at their first run
        if force:
            await self.connection.close()
        await self.connection.start()
        if not self.connection.connected:
            logger.error("mcp_connect_failed", server=self.name, error=self.connection.last_error)

    async def aready(self, user_id: str | None = None) -> None:
        """Before a run offers the tools: connect once if no one has (then never wait).

        Per user: open ``user_id``'s own connection, or raise
        MCPConnectionRequiredError (the run answers with the ``/connect`` hint).
        """
        if self.users is not None:
            await self.users.aready(user_id)
        elif not self.connection.started:
            await self.connect()

    async def close(self) -> None:
        """Close the session and the transport (a stdio server's process ends)."""
        await self.connection.close()
        if self.users is not None:
            await self.users.close()
        if self.oauth is not None:
            await self.oauth.close()

    async def __aenter__(self) -> MCPTools:
        if self.users is not None:
            return self  # nothing shared to open: each user's opens at their first run
        await self.connection.start()
        if not self.connection.connected:
            reason = self.connection.last_error or "did not answer in time"
            await self.connection.close()
            raise MCPConnectionError(self.name, f"unreachable: {reason}")
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # -- the tools ---------------------------------------------------------------------
    def _listed(self, tools: list[types.Tool]) -> None:
        """A new listing: rebuild the offered functions and swap them in at once."""
        self.server_tools = list(tools)
        names = {tool.name for tool in tools}
        for label, wanted in (
            ("include_tools", self.include_tools),
            ("exclude_tools", self.exclude_tools),
        ):
            missing = sorted(set(wanted or ()) - names)
            if missing:
                logger.warning(
                    "mcp_tools_not_on_server", server=self.name, option=label, tools=missing
                )
        table: dict[str, Function] = {}
        for tool in tools:
            if self.include_tools is not None and tool.name not in self.include_tools:
                continue
            if self.exclude_tools is not None and tool.name in self.exclude_tools:
                continue
            function = self._function(tool)
            table[function.name] = function
        self.async_functions = table
        logger.info("mcp_tools_listed", server=self.name, tools=sorted(table))

    def _function(self, tool: types.Tool) -> Function:
        server_name = tool.name

        async def call_mcp_tool(**arguments: Any) -> str | ToolResult:
            return await self._call(self.connection, server_name, arguments)

        async def call_as_user(run_context: RunContext, **arguments: Any) -> str | ToolResult:
            assert self.users is not None
            connection = await self.users.aconnection(run_context.user_id)
            return await self._call(connection, server_name, arguments)

        stop = server_name in self.stop_after_tool_call_tools
        function = Function(
            call_as_user if self.users is not None else call_mcp_tool,
            name=f"{self.tool_name_prefix}_{server_name}" if self.tool_name_prefix else server_name,
            description=tool.description or tool.title or server_name,
            parameters=tool.input_schema,
            timeout=self.timeout_seconds,
            requires_confirmation=server_name in self.requires_confirmation_tools,
            stop_after_tool_call=stop,
            show_result=stop or server_name in self.show_result_tools,
        )
        function.toolkit_instructions = self.instructions if self.add_instructions else None
        return function

    async def _call(
        self, connection: MCPConnection, tool: str, arguments: dict[str, Any]
    ) -> str | ToolResult:
        try:
            result = await connection.call(tool, arguments)
        except MCPError as exc:  # the server answered with an error instead of a result
            raise ToolRefusedError(
                f"MCP server {self.name!r} refused the call to {tool!r}: {exc.message}"
            ) from None
        return tool_result(self.name, tool, result)  # images: a ToolResult, posted in chat

    # -- transports --------------------------------------------------------------------
    def _transport_for_user(self, user_id: str, stored: dict[str, Any]) -> Any:
        """How one user's connection opens: with their OAuth tokens (refreshed when due),
        or with the server's headers and their pasted token as a bearer token."""
        flows = self.oauth
        if stored.get("method") == "oauth" and flows is not None:
            return lambda: self._open_transport(auth=flows.auth_for(user_id))
        bearer = {"Authorization": f"Bearer {stored['token']}"}
        return lambda: self._open_transport(bearer, per_user=True)

    @contextlib.asynccontextmanager
    async def _open_transport(
        self,
        extra: dict[str, str] | None = None,
        *,
        per_user: bool = False,
        auth: httpx2.Auth | None = None,
    ) -> AsyncIterator[Any]:
        params = self.server_params
        if isinstance(params, StdioServerParameters):
            async with stdio_client(params, errlog=sys.stderr) as streams:
                yield streams
            return
        timeout = httpx2.Timeout(
            _seconds(params.timeout, 30.0), read=_seconds(params.sse_read_timeout, 300.0)
        )
        async with (
            httpx2.AsyncClient(
                headers={**(params.headers or {}), **(extra or {})},
                timeout=timeout,
                auth=auth,
                event_hooks={"response": [self._refused_credential]} if per_user else None,
            ) as client,
            streamable_http_client(
                params.url,
                http_client=client,
                terminate_on_close=params.terminate_on_close is not False,
            ) as streams,
        ):
            yield streams

    async def _refused_credential(self, response: httpx2.Response) -> None:
        """A user's token the server refuses: say so (the SDK reports only an error)."""
        if response.status_code in (401, 403):
            raise MCPConnectionError(
                self.name,
                f"the server refused your credential (HTTP {response.status_code}); "
                f"connect again with /connect {self.name}",
            )

    def __repr__(self) -> str:
        tools = list(self.async_functions)
        return f"<MCPTools name={self.name} transport={self.transport} tools={tools}>"


def _transport_of(
    transport: str | None,
    url: str | None,
    server_params: StdioServerParameters | StreamableHTTPClientParams | None,
) -> Transport:
    if transport == "sse":
        raise ValueError("the SSE transport is deprecated and not supported; use streamable-http")
    if transport not in (None, "stdio", "streamable-http"):
        raise ValueError(f"transport must be 'stdio' or 'streamable-http', not {transport!r}")
    if url is not None or isinstance(server_params, StreamableHTTPClientParams):
        if transport == "stdio":
            raise ValueError("a url needs transport='streamable-http', not 'stdio'")
        return "streamable-http"
    return "stdio" if transport is None else transport  # type: ignore[return-value]


def _params_of(
    transport: Transport,
    command: str | None,
    url: str | None,
    env: dict[str, str] | None,
    given: StdioServerParameters | StreamableHTTPClientParams | None,
) -> StdioServerParameters | StreamableHTTPClientParams:
    if given is not None:
        wanted = StdioServerParameters if transport == "stdio" else StreamableHTTPClientParams
        if not isinstance(given, wanted):
            raise ValueError(f"server_params for {transport} must be a {wanted.__name__}")
        if command is not None or url is not None:
            raise ValueError("give server_params or command/url, not both")
        return given
    if transport == "streamable-http":
        if not url:
            raise ValueError("the streamable-http transport needs url= or server_params=")
        return StreamableHTTPClientParams(url=url)
    parts = shlex.split(command or "")
    if not parts:
        raise ValueError("the stdio transport needs command= (or server_params=, or url=)")
    return StdioServerParameters(command=parts[0], args=parts[1:], env=env)


def _default_name(params: StdioServerParameters | StreamableHTTPClientParams) -> str:
    if isinstance(params, StreamableHTTPClientParams):
        return f"mcp-{urlsplit(params.url).hostname or 'http'}"
    return f"mcp-{params.command.rsplit('/', 1)[-1]}"


def _seconds(value: Any, default: float) -> float:
    if value is None:
        return default
    return float(value.total_seconds()) if hasattr(value, "total_seconds") else float(value)
