"""MCP tools in agent runs: listed, called, bounded, failing, counted (issue 24, item 4)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.agent import Agent
from core.exceptions import BudgetExceededError
from core.governance.budgets.model import Budget
from core.models.scripted import ScriptedModel, tool_call
from core.tools.mcp import MCPTools

pytestmark = pytest.mark.slow  # each test starts a server process


def note(session_state: dict[str, Any], text: str) -> str:
    """Write a note into the session state (a local tool beside the MCP ones)."""
    session_state.setdefault("notes", []).append(text)
    return "noted"


def tool_names(model: ScriptedModel, request: int = 0) -> list[str]:
    return sorted(t["function"]["name"] for t in model.requests[request].tools)


def tool_results(model: ScriptedModel, request: int) -> list[str]:
    return [m.content or "" for m in model.requests[request].messages if m.role == "tool"]


async def test_tools_listed_and_called_in_a_run(server_args: dict[str, str]) -> None:
    """The server's tools are offered with their schemas and called by the model; the
    agent's own state changes in the same batch are kept."""
    model = ScriptedModel([[tool_call("add", a=2, b=3), tool_call("note", text="x")], "5"])
    async with MCPTools(**server_args) as mcp:
        agent = Agent(model=model, tools=[mcp, note])
        output = await agent.arun("2+3?", session_id="s")
    assert output.content == "5"
    assert tool_results(model, 1) == ["5", "noted"]
    assert {"add", "greet", "hang", "note"} <= set(tool_names(model))
    add = next(t for t in model.requests[0].tools if t["function"]["name"] == "add")
    assert add["function"]["parameters"]["required"] == ["a", "b"]
    assert await agent.aget_session_state("s") == {"notes": ["x"]}


async def test_a_hung_call_is_bounded_and_the_run_completes(server_args: dict[str, str]) -> None:
    """A call that never answers ends at the tool timeout as an error for the model; the
    run goes on, and the connection still serves the next call."""
    model = ScriptedModel(
        [
            [tool_call("note", text="kept"), tool_call("hang", seconds=600)],
            tool_call("add", a=1, b=1),
            "done",
        ]
    )
    async with MCPTools(**server_args) as mcp:
        agent = Agent(model=model, tools=[mcp, note], tool_timeout=0.5)
        output = await agent.arun("wait", session_id="s")
    assert output.content == "done"
    hung = tool_results(model, 1)[1]
    assert hung.startswith("Error: tool 'hang' timed out after 0.5 s")
    assert tool_results(model, 2)[-1] == "2"
    assert await agent.aget_session_state("s") == {"notes": ["kept"]}


async def test_timeout_seconds_bounds_each_call_of_the_toolkit() -> None:
    """``timeout_seconds`` is the toolkit's own bound, over the agent's tool_timeout."""
    from tests.core.mcp.conftest import STDIO_COMMAND

    model = ScriptedModel([tool_call("hang", seconds=600), "done"])
    async with MCPTools(STDIO_COMMAND, timeout_seconds=0.3) as mcp:
        agent = Agent(model=model, tools=[mcp], tool_timeout=60)
        await agent.arun("wait", session_id="s")
    assert tool_results(model, 1)[0].startswith("Error: tool 'hang' timed out after 0.3 s")


async def test_error_results_and_refusals_reach_the_model(server_args: dict[str, str]) -> None:
    """An error result and the server's refusal of bad arguments are the calls' errors,
    with the server's words; the run completes and the state is unaffected."""
    model = ScriptedModel(
        [[tool_call("fail", reason="no access"), tool_call("add", a="two", b=1)], "sorry"]
    )
    async with MCPTools(**server_args) as mcp:
        agent = Agent(model=model, tools=[mcp])
        output = await agent.arun("try", session_id="s")
    assert output.content == "sorry"
    failed, refused = tool_results(model, 1)
    assert failed.startswith("Error: MCP tool 'fail' of server 'testsrv' reported an error")
    assert "cannot do that: no access" in failed
    assert refused.startswith("Error: ") and "add" in refused
    assert all(t.error for t in output.tools)
    assert await agent.aget_session_state("s") == {}


async def test_include_and_exclude_filter_the_offered_tools() -> None:
    """include_tools offers only those; exclude_tools all but those; a prefix renames."""
    from tests.core.mcp.conftest import STDIO_COMMAND

    async with MCPTools(STDIO_COMMAND, include_tools=["add", "greet"]) as only:
        assert sorted(only.get_async_functions()) == ["add", "greet"]
    async with MCPTools(
        STDIO_COMMAND, exclude_tools=["crash", "hang"], tool_name_prefix="srv"
    ) as rest:
        assert sorted(rest.get_async_functions()) == [
            "srv_add",
            "srv_fail",
            "srv_greet",
            "srv_grow",
            "srv_header",
            "srv_picture",
        ]
        model = ScriptedModel([tool_call("srv_greet", name="Ana"), "ok"])
        await Agent(model=model, tools=[rest]).arun("hi")
        assert tool_results(model, 1) == ["Hello, Ana!"]


async def test_the_list_is_refreshed_when_the_server_says_it_changed(
    server_args: dict[str, str],
) -> None:
    """After the server's list-changed notification the next run offers the new tool."""
    async with MCPTools(**server_args) as mcp:
        agent = Agent(model=ScriptedModel([tool_call("grow", name="sprout"), "ok"]), tools=[mcp])
        await agent.arun("grow", session_id="s")
        for _ in range(100):  # the listing runs on the connection's own task
            if "sprout" in mcp.get_async_functions():
                break
            await asyncio.sleep(0.05)
        model = ScriptedModel([tool_call("sprout"), "ok"])
        agent.model = model
        await agent.arun("use it", session_id="s")
    assert "sprout" in tool_names(model)
    assert tool_results(model, 1) == ["sprout was added"]


async def test_images_are_described_to_the_model_and_given_to_the_person() -> None:
    """An image result reaches the model as a short description, and the run's output
    as an Image (a ToolResult's), which a chat front end posts into the conversation."""
    from tests.core.mcp.conftest import STDIO_COMMAND
    from tests.core.mcp.server import PIXEL

    model = ScriptedModel([tool_call("picture"), "ok"])
    async with MCPTools(STDIO_COMMAND) as mcp:
        out = await Agent(model=model, tools=[mcp]).arun("draw")
    assert tool_results(model, 1) == ["[image returned: image/png, 70 bytes; not shown here]"]
    assert out.images is not None and len(out.images) == 1
    assert out.images[0].content == PIXEL and out.images[0].mime_type == "image/png"


async def test_mcp_calls_count_in_the_tool_call_budget() -> None:
    """MCP calls are metered like any tool call: a spent budget refuses the next run,
    and a direct call (a slash command) reaches the MCP tool the same way."""
    from tests.core.mcp.conftest import STDIO_COMMAND

    model = ScriptedModel([tool_call("add", a=1, b=2), "3"])
    async with MCPTools(STDIO_COMMAND) as mcp:
        agent = Agent(model=model, tools=[mcp], budget=Budget(tool_calls_per_session=2))
        output = await agent.arun("1+2", session_id="s")
        assert output.metrics.tool_calls == 1
        direct = await agent.arun_tool("add", {"a": 4, "b": 4}, session_id="s")
        assert "8" in str(direct.content)
        with pytest.raises(BudgetExceededError):
            await agent.arun("again", session_id="s")


async def test_http_headers_reach_the_server(http_url: str) -> None:
    """``StreamableHTTPClientParams(headers=...)`` (a deployment's API key) is sent with
    every request."""
    from core.tools.mcp import StreamableHTTPClientParams

    params = StreamableHTTPClientParams(url=http_url, headers={"X-Api-Key": "k-123"})
    model = ScriptedModel([tool_call("header", name="X-Api-Key"), "ok"])
    async with MCPTools(server_params=params) as mcp:
        await Agent(model=model, tools=[mcp]).arun("who am I?")
    assert tool_results(model, 1) == ["k-123"]
