"""The deployment's MCP servers (``STATEBOT_MCP_SERVERS``) given to the agents.

One :class:`core.tools.mcp.MCPTools` per server per process, shared by every agent that
gets it: the process owns its connection. A serving process opens them at start (in
the background: a server that is slow or down delays nobody, and is retried with
backoff), the console on its first run; ``await app.mcp.aclose()`` closes them at
shutdown. Servers go to Agents; naming a team or a workflow is a ConfigError (give the
server to the agents inside it in code), and ``"*"`` means every Agent of the app.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping

import structlog
from mcp import StdioServerParameters

from bots.chat.registry import ChatAgent
from bots.chat.service import ConfigError
from bots.settings import Settings
from bots.settings.mcp import McpServer
from core.agent import Agent
from core.db.base import BaseDb
from core.governance.credentials import McpCredentials
from core.tools.mcp import MCPTools, StreamableHTTPClientParams

__all__ = ["McpServers", "attach_mcp_servers", "toolkit_for"]

log = structlog.get_logger(__name__)


class McpServers:
    """The toolkits of the configured servers, by name: started and closed together."""

    __slots__ = ("_starting", "toolkits")

    def __init__(self, toolkits: Mapping[str, MCPTools]) -> None:
        self.toolkits = dict(toolkits)
        self._starting: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Open every connection in the background, when an event loop runs here."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # the first run that offers a server's tools opens it
        for name, toolkit in self.toolkits.items():
            self._starting.append(loop.create_task(toolkit.connect(), name=f"mcp-start-{name}"))

    async def aclose(self) -> None:
        """Close every connection (a stdio server's process ends)."""
        for task in self._starting:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._starting.clear()
        await asyncio.gather(*(toolkit.close() for toolkit in self.toolkits.values()))


#: where an authorization server sends people back, under STATEBOT_WEB_URL
OAUTH_CALLBACK = "/mcp/oauth/callback"


def toolkit_for(
    server: McpServer, db: BaseDb | None = None, web_url: str | None = None
) -> MCPTools:
    """The MCPTools a configured server describes (a per-user one keeps its users'
    credentials in ``db``; an OAuth one sends people back to ``web_url``'s callback)."""
    params: StdioServerParameters | StreamableHTTPClientParams
    callback = web_url.rstrip("/") + OAUTH_CALLBACK if web_url else None
    if server.url is not None:
        params = StreamableHTTPClientParams(url=server.url, headers=dict(server.headers) or None)
    else:
        assert server.command is not None  # one of the two, checked by McpServer
        params = StdioServerParameters(
            command=server.command, args=list(server.args), env=dict(server.env) or None
        )
    return MCPTools(
        name=server.name,
        server_params=params,
        include_tools=server.include_tools,
        exclude_tools=server.exclude_tools,
        tool_name_prefix=server.tool_name_prefix,
        timeout_seconds=server.timeout_seconds,
        per_user=server.per_user,
        credentials=McpCredentials(db) if server.per_user and db is not None else None,
        oauth_redirect_url=callback if server.oauth else None,
    )


def attach_mcp_servers(
    agents: Mapping[str, ChatAgent], settings: Settings, db: BaseDb
) -> McpServers:
    """Give each configured server's toolkit to the agents it names; ConfigError for a
    name that is no agent of the app, or a team or workflow, and for a per-user server
    when ``db`` does not seal state at rest (credentials are never kept in the clear)."""
    toolkits: dict[str, MCPTools] = {}
    for server in settings.statebot_mcp_servers:
        targets = _targets(server, agents)
        if server.per_user and not McpCredentials(db).sealed:
            raise ConfigError(
                f"STATEBOT_MCP_SERVERS: server {server.name!r} is per_user, which keeps "
                "people's tokens: set STATEBOT_STATE_KEYS so they are stored encrypted"
            )
        if server.oauth and not settings.statebot_web_url:
            raise ConfigError(
                f"STATEBOT_MCP_SERVERS: server {server.name!r} connects by oauth, whose "
                "authorization sends people back to the web console: set STATEBOT_WEB_URL "
                "(and serve the console in this process)"
            )
        toolkit = toolkit_for(server, db, settings.statebot_web_url)
        for agent in targets:
            agent.add_tool(toolkit)
        toolkits[server.name] = toolkit
        log.info("mcp_server_configured", server=server.name, agents=[a.id for a in targets])
    return McpServers(toolkits)


def _targets(server: McpServer, agents: Mapping[str, ChatAgent]) -> list[Agent]:
    where = f"STATEBOT_MCP_SERVERS: server {server.name!r}"
    if server.every_agent:
        chosen = [a for a in agents.values() if isinstance(a, Agent)]
    else:
        unknown = [name for name in server.agents if name not in agents]
        if unknown:
            raise ConfigError(
                f"{where}: {', '.join(map(repr, unknown))} is not an agent of the app "
                f"(agents: {', '.join(agents)})"
            )
        not_agents = [name for name in server.agents if not isinstance(agents[name], Agent)]
        if not_agents:
            raise ConfigError(
                f"{where}: {', '.join(map(repr, not_agents))} is a team or workflow; MCP "
                "servers are given to agents (give it to the agents inside it in code)"
            )
        chosen = [agent for name in server.agents if isinstance(agent := agents[name], Agent)]
    unique: dict[int, Agent] = {id(agent): agent for agent in chosen}  # one agent, two names
    return list(unique.values())
