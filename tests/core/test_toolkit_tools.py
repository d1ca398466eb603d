"""Toolkit: @tool on methods, async variants, Agno's toolkit options."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.agent.prompt import PromptSpec, build_system_message
from core.testing import ScriptedModel, tool_call
from core.tools import Function, Toolkit, tool


class Board(Toolkit):
    """A toolkit whose methods are decorated with @tool options."""

    def __init__(self) -> None:
        self.prefix = "task"
        super().__init__(name="board", tools=[self.add, self.peek])

    @tool(name="add_task", description="Add a task.")
    def add(self, session_state: dict[str, Any], title: str) -> str:
        session_state.setdefault("tasks", []).append(f"{self.prefix}:{title}")
        return f"added {title}"

    @tool(show_result=True)
    def peek(self) -> str:
        """Show the prefix."""
        return self.prefix


def test_tool_decorated_methods_bind_self_and_keep_their_options() -> None:
    """@tool(name=...) on a Toolkit method runs with self bound and keeps name and flags."""
    board = Board()
    assert sorted(board.functions) == ["add_task", "peek"]
    assert board.functions["peek"].show_result is True
    assert board.functions["peek"].entrypoint() == "task"
    assert "self" not in board.functions["add_task"].parameters["properties"]
    agent = Agent(model=ScriptedModel([tool_call("add_task", title="x"), "ok"]), tools=[board])
    out = agent.run("go", session_id="s")
    assert out.tools[0].result == "added x"
    assert out.session_state["tasks"] == ["task:x"]


def test_decorated_method_is_callable_from_the_instance() -> None:
    """board.add(...) calls the method with self bound, like an undecorated method."""
    state: dict[str, Any] = {}
    assert Board().add(state, "y") == "added y" and state == {"tasks": ["task:y"]}


class Fetcher(Toolkit):
    """A sync tool with an async variant of the same name, and one sync-only tool."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        super().__init__(
            name="fetcher",
            tools=[self.fetch, self.local],
            async_tools=[(self.afetch, "fetch")],
        )

    def fetch(self, url: str) -> str:
        """Fetch a page."""
        self.calls.append("sync")
        return f"sync:{url}"

    async def afetch(self, url: str) -> str:
        """Fetch a page."""
        self.calls.append("async")
        return f"async:{url}"

    def local(self) -> str:
        """Sync only."""
        return "local"


def test_async_variant_is_registered_beside_the_sync_one() -> None:
    """functions holds the sync tools, async_functions the variants; get_async_functions merges."""
    kit = Fetcher()
    assert sorted(kit.functions) == ["fetch", "local"]
    assert list(kit.async_functions) == ["fetch"]
    merged = kit.get_async_functions()
    assert merged["fetch"].is_async and not merged["local"].is_async
    assert kit.get_functions() is kit.functions


async def test_arun_prefers_the_async_variant() -> None:
    """A run calls a toolkit's async variant when it has one, the sync tool otherwise."""
    kit = Fetcher()
    model = ScriptedModel([[tool_call("fetch", url="u"), tool_call("local")], "ok"])
    out = await Agent(model=model, tools=[kit]).arun("go", session_id="s")
    assert [t.result for t in out.tools] == ["async:u", "local"]
    assert kit.calls == ["async"]
    assert [t["function"]["name"] for t in model.requests[0].tools] == ["fetch", "local"]


def test_register_detects_async_functions() -> None:
    """register() of a coroutine function files it under async_functions (Agno's rule)."""

    async def ping() -> str:
        return "pong"

    kit = Toolkit(name="k", auto_register=False)
    kit.register(ping)
    assert kit.functions == {} and list(kit.async_functions) == ["ping"]
    assert list(Agent(tools=[kit]).functions) == ["ping"]


def test_include_and_exclude_tools() -> None:
    """include_tools/exclude_tools pick tools; naming a missing tool is an error."""

    def a() -> str:
        return "a"

    def b() -> str:
        return "b"

    assert list(Toolkit(tools=[a, b], include_tools=["a"]).functions) == ["a"]
    assert list(Toolkit(tools=[a, b], exclude_tools=["a"]).functions) == ["b"]
    with pytest.raises(ValueError, match="nope"):
        Toolkit(tools=[a], include_tools=["nope"])


def test_toolkit_flag_lists_set_the_function_flags() -> None:
    """The toolkit's per-tool lists and cache_results set the flags of its Functions."""

    def rm() -> str:
        return ""

    def done() -> str:
        return ""

    def show() -> str:
        return ""

    kit = Toolkit(
        tools=[rm, done, show],
        requires_confirmation_tools=["rm"],
        stop_after_tool_call_tools=["done"],
        show_result_tools=["show"],
        cache_results=True,
        cache_ttl=60,
    )
    fns = kit.functions
    assert fns["rm"].requires_confirmation and not fns["done"].requires_confirmation
    assert fns["done"].stop_after_tool_call and fns["done"].show_result
    assert fns["show"].show_result and not fns["show"].stop_after_tool_call
    assert all(f.cache is not None and f.cache.ttl == 60 for f in fns.values())


def test_toolkit_refuses_what_it_cannot_honour() -> None:
    """external_execution_required_tools and unknown options are errors naming them."""

    def a() -> str:
        return ""

    with pytest.raises(ValueError, match="external_execution_required_tools"):
        Toolkit(tools=[a], external_execution_required_tools=["a"])
    with pytest.raises(TypeError, match="bogus"):
        Toolkit(tools=[a], bogus=True)  # type: ignore[call-arg]


def test_toolkit_instructions_reach_the_system_message_when_asked() -> None:
    """Toolkit(instructions=..., add_instructions=True) is added once to the system message."""

    def a() -> str:
        return ""

    def b() -> str:
        return ""

    shown = Toolkit(tools=[a], instructions="Use the board tools.", add_instructions=True)
    shown.register(b)
    silent = Toolkit(name="q", tools=[lambda: ""], instructions="Hidden.")
    functions: dict[str, Function] = {**shown.functions, **silent.functions}
    system = build_system_message(
        PromptSpec(), state={}, dependencies={}, identity={}, functions=functions
    )
    assert system is not None and system.count("Use the board tools.") == 1
    assert "Hidden." not in system


def test_register_with_a_new_name_keeps_a_decorated_tool_intact() -> None:
    """register(function, name=...) renames a Function instead of wrapping it."""

    @tool(show_result=True)
    def greet(name: str) -> str:
        return f"hi {name}"

    kit = Toolkit(auto_register=False)
    kit.register(greet, name="hello")
    fn = kit.functions["hello"]
    assert fn.name == "hello" and fn.show_result and fn.entrypoint("bo") == "hi bo"
    assert list(fn.parameters["properties"]) == ["name"]
