"""STATEBOT_MCP_SERVERS wired where agents are built: given, opened, used, closed."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bots.app.build import build_app
from bots.chat.service import ConfigError
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.models.scripted import ScriptedModel, tool_call
from core.team import Team
from tests.bots.conftest import message
from tests.core.mcp.conftest import SERVER

pytestmark = pytest.mark.slow  # starts an MCP server process

OFFLINE: dict[str, Any] = {"openai_api_key": None, "openai_base_url": None, "redis_url": None}


def servers(**entries: dict[str, Any]) -> str:
    return json.dumps(entries)


STDIO = {"command": sys.executable, "args": [str(SERVER)], "env": {"TEST_MCP_GREETING": "Hey"}}


async def test_a_configured_server_serves_the_agents_it_names() -> None:
    """The server's tools reach the named agent through a chat turn (its env reaches the
    server process); other agents do not get them; aclose() ends the connection."""
    model = ScriptedModel([tool_call("greet", name="Ana"), "greeted"])
    helper = Agent(name="helper", model=model)
    other = Agent(name="other", model=ScriptedModel(["no tools"]))
    settings = Settings(
        **OFFLINE,
        statebot_mcp_servers=servers(greeter={**STDIO, "agents": ["helper"]}),
        statebot_default_agent="helper",
    )
    app = build_app(settings, db=InMemoryDb(), agents={"helper": helper, "other": other})
    assert app.mcp is not None
    try:
        reply = await app.service.handle_message(message("@bot hello"))
        assert reply is not None and "greeted" in reply.text
        tool_messages = [m.content for m in model.requests[1].messages if m.role == "tool"]
        assert tool_messages == ["Hey, Ana!"]
        assert other.live_toolkits == [] and "greet" not in other.functions
        assert app.mcp.toolkits["greeter"].initialized
    finally:
        await app.mcp.aclose()
    assert not app.mcp.toolkits["greeter"].initialized


async def test_a_serving_process_opens_the_servers_at_start(tmp_path: Path) -> None:
    """Built by a serving process (its own store, a running loop) the connections open
    in the background before any message arrives."""
    settings = Settings(
        **OFFLINE,
        statebot_db_url=f"sqlite:///{tmp_path / 'bot.db'}",
        statebot_scheduler=False,
        statebot_mcp_servers=servers(greeter=STDIO),
    )
    app = build_app(settings, agents={"helper": Agent(name="helper")})
    assert app.mcp is not None
    toolkit = app.mcp.toolkits["greeter"]
    try:
        for _ in range(400):
            if toolkit.initialized:
                break
            await asyncio.sleep(0.05)
        assert toolkit.initialized and "greet" in toolkit.get_async_functions()
    finally:
        await app.mcp.aclose()
        await app.db.aclose()


def test_naming_no_agent_or_a_team_is_a_config_error() -> None:
    """A name that is no agent of the app, or a team, is refused at start, saying which."""
    agents = {"helper": Agent(name="helper"), "crew": Team(members=[Agent(name="m")])}
    unknown = Settings(**OFFLINE, statebot_mcp_servers=servers(g={**STDIO, "agents": ["nobody"]}))
    with pytest.raises(ConfigError, match="server 'g': 'nobody' is not an agent of the app"):
        build_app(unknown, db=InMemoryDb(), agents=agents)
    team = Settings(**OFFLINE, statebot_mcp_servers=servers(g={**STDIO, "agents": ["crew"]}))
    with pytest.raises(ConfigError, match="'crew' is a team or workflow"):
        build_app(team, db=InMemoryDb(), agents=agents)


def test_every_agent_means_the_agents_of_the_catalog() -> None:
    """``"*"`` (the default) gives the server to every Agent of the ready catalog."""
    settings = Settings(**OFFLINE, statebot_mcp_servers=servers(g=STDIO))
    app = build_app(settings, db=InMemoryDb())
    assert app.mcp is not None
    toolkit = app.mcp.toolkits["g"]
    given = [a for a in app.service.agents.values() if toolkit in getattr(a, "live_toolkits", [])]
    assert given and all(isinstance(a, Agent) for a in given)


def test_a_url_server_keeps_its_headers_and_options() -> None:
    """A configured url server becomes a streamable-HTTP MCPTools with its headers,
    filters, prefix and timeout."""
    from bots.app.mcp import toolkit_for
    from bots.settings.mcp import McpServer
    from core.tools.mcp import StreamableHTTPClientParams

    server = McpServer(
        name="docs",
        url="https://mcp.example.com/mcp",
        headers={"Authorization": "Bearer t"},
        exclude_tools=("delete",),
        tool_name_prefix="docs",
        timeout_seconds=5,
    )
    toolkit = toolkit_for(server)
    assert toolkit.transport == "streamable-http" and toolkit.name == "docs"
    assert toolkit.server_params == StreamableHTTPClientParams(
        url="https://mcp.example.com/mcp", headers={"Authorization": "Bearer t"}
    )
    assert toolkit.exclude_tools == ["delete"] and toolkit.tool_name_prefix == "docs"
    assert toolkit.timeout_seconds == 5
