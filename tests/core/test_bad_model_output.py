"""Bad model output becomes an error result for the model; the run goes on, state unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.exceptions import NoModelError, ToolArgumentError, ToolCallLimitError, UnknownToolError
from core.testing import ScriptedModel, tool_call


def set_count(session_state: dict[str, Any], count: int) -> str:
    """Set the counter.

    Args:
        count: The new value.
    """
    session_state["count"] = count
    return f"count={count}"


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (tool_call("set_count", _raw_arguments='{"count": 3'), "not valid JSON"),
        (tool_call("set_count", _raw_arguments="[1, 2]"), "must be a JSON object"),
        (tool_call("set_count", count="three"), "count"),
        (tool_call("set_count"), "Field required"),
        (tool_call("set_count", count=1, extra=2), "extra"),
        (tool_call("set_count", count=1, session_state={}), "cannot be passed"),
        (tool_call("no_such_tool", x=1), "unknown tool 'no_such_tool'"),
    ],
)
async def test_bad_tool_call_becomes_an_error_result(call: Any, expected: str) -> None:
    """Invalid JSON, wrong types, missing/extra/injected args and unknown tools are reported."""
    model = ScriptedModel([call, "I will fix that"])
    agent = Agent(model=model, tools=[set_count], session_state={"count": 0})
    out = await agent.arun("x", session_id="s")
    assert out.content == "I will fix that"
    assert out.tools[0].error and expected in out.tools[0].result
    tool_message = model.requests[1].messages[-1]
    assert tool_message.role == "tool" and expected in (tool_message.content or "")
    assert await agent.aget_session_state("s") == {"count": 0}


async def test_good_call_after_a_bad_one_in_the_same_batch_still_runs() -> None:
    """One bad call in a parallel batch does not stop its siblings."""
    model = ScriptedModel(
        [[tool_call("set_count", count="x"), tool_call("set_count", count=5)], "ok"]
    )
    out = await Agent(model=model, tools=[set_count]).arun("x")
    assert [t.error for t in out.tools] == [True, False]
    assert out.session_state == {"count": 5}


async def test_tool_round_cap_is_a_clear_error_and_keeps_saved_state() -> None:
    """A model that never stops calling tools hits tool_call_limit; earlier batches stay saved."""
    model = ScriptedModel([tool_call("set_count", count=i) for i in range(5)])
    agent = Agent(model=model, tools=[set_count], tool_call_limit=3)
    with pytest.raises(ToolCallLimitError, match="more than 3 rounds"):
        await agent.arun("loop", session_id="s")
    assert await agent.aget_session_state("s") == {"count": 2}


async def test_free_text_without_a_model_says_how_to_configure_one() -> None:
    """An agent without a model raises NoModelError naming the settings."""
    with pytest.raises(NoModelError, match="OPENAI_API_KEY"):
        await Agent(tools=[set_count]).arun("hello")


async def test_direct_tool_call_persists_like_a_model_call() -> None:
    """arun_tool runs one tool with hooks and validation, and saves the change."""
    seen: list[str] = []

    def audit(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        seen.append(function_name)
        return function_call(**arguments)

    agent = Agent(tools=[set_count], tool_hooks=[audit])
    out = await agent.arun_tool("set_count", {"count": "7"}, session_id="s", user_id="u")
    assert out.content == "count=7" and seen == ["set_count"]
    assert await agent.aget_session_state("s") == {"count": 7}


async def test_direct_tool_call_rejects_unknown_tools_and_bad_arguments() -> None:
    """arun_tool raises clear errors for unknown tools and bad arguments; nothing is created."""
    agent = Agent(tools=[set_count])
    with pytest.raises(UnknownToolError, match="available: set_count"):
        await agent.arun_tool("nope", {}, session_id="s")
    with pytest.raises(ToolArgumentError, match="count"):
        await agent.arun_tool("set_count", {"count": "many"}, session_id="s")
    assert await agent.db.aload("s") is None
