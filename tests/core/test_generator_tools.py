"""Generator tools: what they yield is the result; their state changes persist or roll back."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from core.agent import Agent
from core.testing import ScriptedModel, tool_call
from core.tools import tool


def test_sync_generator_tool_runs_and_its_chunks_are_joined() -> None:
    """A sync generator tool runs; the model gets the yielded chunks joined; state persists."""

    def count_to(session_state: dict[str, Any], n: int) -> Iterator[str]:
        for i in range(1, n + 1):
            session_state["last"] = i
            yield f"{i} "

    agent = Agent(model=ScriptedModel([tool_call("count_to", n=3), "ok"]), tools=[count_to])
    out = agent.run("go", session_id="s")
    assert out.tools[0].result == "1 2 3 "
    assert agent.get_session_state("s")["last"] == 3


async def test_async_generator_tool_runs_and_its_chunks_are_joined() -> None:
    """An async generator tool runs on the loop; chunks are joined; state persists."""

    async def stream_items(session_state: dict[str, Any]) -> AsyncIterator[str]:
        for item in ("a", "b"):
            session_state.setdefault("seen", []).append(item)
            yield item

    agent = Agent(model=ScriptedModel([tool_call("stream_items"), "ok"]), tools=[stream_items])
    out = await agent.arun("go", session_id="s")
    assert out.tools[0].result == "ab"
    assert out.session_state["seen"] == ["a", "b"]


def test_non_string_chunks_are_joined_as_text() -> None:
    """Chunks that are not strings are joined by their str(), as Agno does."""

    @tool
    def numbers() -> Iterator[int]:
        yield 1
        yield 2

    agent = Agent(model=ScriptedModel([tool_call("numbers"), "ok"]), tools=[numbers])
    assert agent.run("go", session_id="s").tools[0].result == "12"


def test_sync_generator_that_raises_midway_rolls_back() -> None:
    """A generator that fails after changing state: error result, every change undone."""

    def half_done(session_state: dict[str, Any]) -> Iterator[str]:
        session_state["partial"] = True
        yield "started"
        raise RuntimeError("disk full")

    agent = Agent(
        model=ScriptedModel([tool_call("half_done"), "ok"]),
        tools=[half_done],
        session_state={"partial": False},
    )
    out = agent.run("go", session_id="s")
    assert out.tools[0].error and "disk full" in out.tools[0].result
    assert agent.get_session_state("s") == {"partial": False}


async def test_async_generator_that_raises_midway_rolls_back() -> None:
    """An async generator that fails midway: error result, state as before the call."""

    async def half_done(session_state: dict[str, Any]) -> AsyncIterator[str]:
        session_state["partial"] = True
        yield "started"
        raise RuntimeError("upstream gone")

    agent = Agent(
        model=ScriptedModel([tool_call("half_done"), "ok"]),
        tools=[half_done],
        session_state={"partial": False},
    )
    out = await agent.arun("go", session_id="s")
    assert out.tools[0].error and "upstream gone" in out.tools[0].result
    assert out.session_state == {"partial": False}


def test_hooks_around_a_generator_tool_see_the_joined_result() -> None:
    """A tool hook's function_call returns the joined text, not a generator object."""
    seen: list[Any] = []

    def hook(function_call: Callable[..., Any], arguments: dict[str, Any]) -> Any:
        result = function_call(**arguments)
        seen.append(result)
        return result

    def parts() -> Iterator[str]:
        yield "x"
        yield "y"

    agent = Agent(model=ScriptedModel([tool_call("parts"), "ok"]), tools=[parts], tool_hooks=[hook])
    out = agent.run("go", session_id="s")
    assert seen == ["xy"] and out.tools[0].result == "xy"


async def test_async_hook_around_sync_generator_sees_the_joined_result() -> None:
    """Async hook + sync generator tool: the generator is drained on its worker thread."""
    seen: list[Any] = []

    async def hook(function_call: Callable[..., Any], arguments: dict[str, Any]) -> Any:
        result = await function_call(**arguments)
        seen.append(result)
        return result

    def parts(session_state: dict[str, Any]) -> Iterator[str]:
        session_state["done"] = True
        yield "p"
        yield "q"

    agent = Agent(model=ScriptedModel([tool_call("parts"), "ok"]), tools=[parts], tool_hooks=[hook])
    out = await agent.arun("go", session_id="s")
    assert seen == ["pq"] and out.session_state["done"] is True
