"""The MCP connection's lifecycle: first use, loss and reconnection, outages, other loops."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest

from core.agent import Agent
from core.exceptions import MCPConnectionError
from core.models.scripted import ScriptedModel, tool_call
from core.team import Team
from core.tools.mcp import MCPTools
from tests.core.mcp.conftest import STDIO_COMMAND
from tests.core.mcp.test_mcp_runs import tool_names, tool_results

pytestmark = pytest.mark.slow  # each test starts a server process


async def _until(condition: object, what: str) -> None:
    for _ in range(400):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


async def test_a_dropped_connection_is_reported_then_reopened() -> None:
    """The server process dies mid-call: the model is told the connection was lost, and
    the supervisor starts the server again for the next run."""
    mcp = MCPTools(STDIO_COMMAND, name="fragile")
    try:
        model = ScriptedModel([tool_call("crash"), "it broke"])
        agent = Agent(model=model, tools=[mcp])
        output = await agent.arun("crash it", session_id="s")
        assert output.content == "it broke"
        assert tool_results(model, 1) == [
            "Error: MCP server 'fragile': the connection was lost during the call; "
            "reconnecting. The session state was left unchanged."
        ]
        await _until(lambda: mcp.initialized, "reconnected")
        agent.model = again = ScriptedModel([tool_call("add", a=20, b=22), "42"])
        await agent.arun("add", session_id="s")
        assert tool_results(again, 1) == ["42"]
    finally:
        await mcp.close()


async def test_the_first_run_connects_and_close_ends_it() -> None:
    """An MCPTools nobody connected is connected by the first run that offers it and
    stays open for later runs; after close() a call says the connection is closed."""
    mcp = MCPTools(STDIO_COMMAND, name="lazy")
    model = ScriptedModel([tool_call("add", a=1, b=1), "2", tool_call("add", a=1, b=2), "3"])
    agent = Agent(model=model, tools=[mcp])
    assert not mcp.initialized and agent.functions == {}
    await agent.arun("one", session_id="s")
    assert mcp.initialized
    await agent.arun("two", session_id="s")
    assert tool_results(model, 1) == ["2"] and tool_results(model, 3) == ["3"]
    function = mcp.get_async_functions()["add"]
    await mcp.close()
    with pytest.raises(MCPConnectionError, match="not connected \\(the connection is closed\\)"):
        await function.entrypoint(a=1, b=1)


async def test_an_unreachable_server_refuses_with_one_line() -> None:
    """``async with`` on a server that cannot start raises one line saying so."""
    broken = f"{sys.executable} -c 'import sys; sys.exit(1)'"
    with pytest.raises(MCPConnectionError) as refused:
        async with MCPTools(broken, name="gone", connect_timeout=5):
            pass
    assert str(refused.value).startswith("MCP server 'gone': unreachable: ")
    assert "\n" not in str(refused.value)


async def test_a_run_goes_on_while_the_server_is_down() -> None:
    """A server down when the run starts offers no tools; the run still answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens
    mcp = MCPTools(url=f"http://127.0.0.1:{port}/mcp", name="down", connect_timeout=2)
    model = ScriptedModel(["no tools today"])
    try:
        output = await Agent(model=model, tools=[mcp]).arun("hi")
        assert output.content == "no tools today"
        assert tool_names(model) == []
        assert mcp.connection.started and mcp.connection.last_error
    finally:
        await mcp.close()


def test_a_sync_run_uses_a_connection_opened_on_another_loop() -> None:
    """``Agent.run`` (the runtime's own loop) calls through a connection opened by the
    caller's loop: the call is handed to that loop."""

    async def scenario() -> list[str]:
        model = ScriptedModel([tool_call("greet", name="Bo"), "ok"])
        async with MCPTools(STDIO_COMMAND) as mcp:
            agent = Agent(model=model, tools=[mcp])
            await asyncio.to_thread(agent.run, "greet Bo")
        return tool_results(model, 1)

    assert asyncio.run(scenario()) == ["Hello, Bo!"]


def test_teams_and_bad_options_are_refused() -> None:
    """A team's own tools cannot be MCP tools (its members' can); SSE, a url over stdio
    and a missing command are refused with the reason."""
    with pytest.raises(TypeError, match="give the toolkit to an Agent"):
        Team(members=[Agent(name="a")], tools=[MCPTools(STDIO_COMMAND)])
    with pytest.raises(ValueError, match="SSE transport is deprecated"):
        MCPTools(url="http://x/sse", transport="sse")
    with pytest.raises(ValueError, match="needs transport='streamable-http'"):
        MCPTools(url="http://x/mcp", transport="stdio")
    with pytest.raises(ValueError, match="needs command="):
        MCPTools()
    with pytest.raises(ValueError, match="timeout_seconds must be positive"):
        MCPTools(STDIO_COMMAND, timeout_seconds=0)


async def test_a_tools_factory_may_make_an_mcp_toolkit() -> None:
    """``tools=`` as a factory (called per run) may return an MCPTools: the run
    connects it and offers its tools."""
    mcp = MCPTools(STDIO_COMMAND, include_tools=["add"])
    model = ScriptedModel([tool_call("add", a=3, b=4), "7"])
    try:
        agent = Agent(model=model, tools=lambda: [mcp])
        await agent.arun("3+4", session_id="s")
        assert tool_names(model) == ["add"] and tool_results(model, 1) == ["7"]
    finally:
        await mcp.close()


async def test_a_call_in_flight_when_closing_says_closed() -> None:
    """close() during a call: the call's error says the connection was closed, not that
    it is reconnecting."""
    mcp = MCPTools(STDIO_COMMAND, name="closing")
    await mcp.connect()
    hang = mcp.get_async_functions()["hang"].entrypoint
    call = asyncio.ensure_future(hang(seconds=600))
    await asyncio.sleep(0.3)
    await mcp.close()
    with pytest.raises(MCPConnectionError) as refused:
        await call
    assert str(refused.value) == "MCP server 'closing': the connection was closed during the call"


def test_a_toolkit_whose_loop_ended_reconnects_on_the_next() -> None:
    """A connection opened under one asyncio.run ends with that loop; the next loop's
    first run connects it again instead of reaching for the closed loop."""
    mcp = MCPTools(STDIO_COMMAND, include_tools=["add"])

    async def one_run(a: int) -> list[str]:
        model = ScriptedModel([tool_call("add", a=a, b=1), "ok"])
        await Agent(model=model, tools=[mcp]).arun("add")
        return tool_results(model, 1)

    assert asyncio.run(one_run(1)) == ["2"]
    assert asyncio.run(one_run(2)) == ["3"]
    asyncio.run(mcp.close())
