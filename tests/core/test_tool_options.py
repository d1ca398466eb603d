"""@tool options: hooks run, flags are visible, caching works, the rest is refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.agent.prompt import PromptSpec, build_system_message
from core.testing import ScriptedModel, tool_call
from core.tools import Function, tool


def _run(agent: Agent, *turns: Any, session_id: str = "s1", user_id: str = "u1") -> Any:
    model = ScriptedModel(list(turns))
    agent.model = model
    return agent.run("go", session_id=session_id, user_id=user_id)


def test_tool_level_tool_hooks_run_and_may_change_arguments() -> None:
    """@tool(tool_hooks=[...]) wraps the tool: the hook runs and its arguments reach the tool."""
    seen: list[tuple[str, dict[str, Any]]] = []

    def shout(function_name: str, function_call: Callable[..., Any], arguments: dict[str, Any]):
        seen.append((function_name, dict(arguments)))
        return function_call(**{**arguments, "item": arguments["item"].upper()})

    @tool(tool_hooks=[shout])
    def add_item(session_state: dict[str, Any], item: str) -> str:
        session_state.setdefault("items", []).append(item)
        return f"added {item}"

    out = _run(Agent(tools=[add_item]), tool_call("add_item", item="milk"), "ok")
    assert seen == [("add_item", {"item": "milk"})]
    assert out.tools[0].result == "added MILK"
    assert out.session_state["items"] == ["MILK"]


def test_pre_hook_that_raises_blocks_the_call_and_changes_nothing() -> None:
    """A raising pre_hook stops the tool: error result, tool never runs, state unchanged."""
    ran: list[str] = []

    def refuse_destructive(fc: Any, session_state: dict[str, Any]) -> None:
        session_state["touched_by_hook"] = True  # undone with the call
        if fc.arguments.get("everything"):
            raise PermissionError("wiping everything is not allowed")

    @tool(pre_hook=refuse_destructive)
    def wipe(session_state: dict[str, Any], everything: bool = False) -> str:
        ran.append("wipe")
        session_state.clear()
        return "wiped"

    agent = Agent(tools=[wipe], session_state={"keep": 1})
    out = _run(agent, tool_call("wipe", everything=True), "ok")
    assert ran == []
    assert out.tools[0].error and "wiping everything is not allowed" in out.tools[0].result
    assert out.session_state == {"keep": 1}


def test_post_hook_sees_the_result_and_may_replace_it() -> None:
    """post_hook sees fc.result after the tool; assigning fc.result changes what the model gets."""
    observed: list[Any] = []

    def redact(fc: Any) -> None:
        observed.append((fc.function.name, fc.arguments, fc.result))
        fc.result = fc.result.replace("secret", "[redacted]")

    @tool(post_hook=redact)
    def lookup(key: str) -> str:
        return f"{key}=secret"

    out = _run(Agent(tools=[lookup]), tool_call("lookup", key="k"), "ok")
    assert observed == [("lookup", {"key": "k"}, "k=secret")]
    assert out.tools[0].result == "k=[redacted]"


async def test_async_pre_and_post_hooks_are_awaited() -> None:
    """Async pre_hook/post_hook are awaited like async tools."""
    order: list[str] = []

    async def pre(fc: Any) -> None:
        order.append("pre")

    async def post(fc: Any) -> None:
        order.append(f"post:{fc.result}")

    @tool(pre_hook=pre, post_hook=post)
    async def ping() -> str:
        order.append("tool")
        return "pong"

    agent = Agent(model=ScriptedModel([tool_call("ping"), "ok"]), tools=[ping])
    await agent.arun("go", session_id="s")
    assert order == ["pre", "tool", "post:pong"]


def test_agent_hooks_wrap_tool_hooks_and_pre_post_hooks_sit_outside() -> None:
    """Order: pre_hook, agent hooks (outermost first), the tool's own hooks, tool, post_hook."""
    order: list[str] = []

    def layer(label: str) -> Callable[..., Any]:
        def hook(function_call: Callable[..., Any], arguments: dict[str, Any]) -> Any:
            order.append(f"{label}>")
            result = function_call(**arguments)
            order.append(f"<{label}")
            return result

        return hook

    @tool(
        tool_hooks=[layer("tool1"), layer("tool2")],
        pre_hook=lambda: order.append("pre"),
        post_hook=lambda: order.append("post"),
    )
    def work() -> str:
        order.append("work")
        return "done"

    agent = Agent(tools=[work], tool_hooks=[layer("agent1"), layer("agent2")])
    _run(agent, tool_call("work"), "ok")
    assert order == [
        "pre",
        "agent1>",
        "agent2>",
        "tool1>",
        "tool2>",
        "work",
        "<tool2",
        "<tool1",
        "<agent2",
        "<agent1",
        "post",
    ]


def test_tool_hooks_also_run_on_direct_tool_calls() -> None:
    """Slash commands (arun_tool) go through the tool's own hooks too."""
    calls: list[str] = []

    def audit(function_name: str, function_call: Callable[..., Any], arguments: dict[str, Any]):
        calls.append(function_name)
        return function_call(**arguments)

    @tool(tool_hooks=[audit])
    def noop() -> str:
        return "ok"

    Agent(tools=[noop]).run_tool("noop", {}, session_id="s")
    assert calls == ["noop"]


def test_requires_confirmation_is_visible_and_never_runs_unconfirmed() -> None:
    """requires_confirmation is a Function flag; without a confirmation the tool does not run."""
    ran: list[str] = []

    @tool(requires_confirmation=True)
    def delete_all(session_state: dict[str, Any]) -> str:
        ran.append("delete_all")
        session_state.clear()
        return "deleted"

    assert delete_all.requires_confirmation is True
    out = _run(Agent(tools=[delete_all], session_state={"a": 1}), tool_call("delete_all"), "ok")
    assert ran == []
    assert out.is_paused  # an agent pauses for the person (tests/core/test_confirmation.py)
    assert [t.tool_name for t in out.tools_requiring_confirmation] == ["delete_all"]
    assert out.session_state == {"a": 1}


def test_stop_and_show_flags_are_exposed_as_agno_sets_them() -> None:
    """stop_after_tool_call implies show_result unless it is set; stops_run says when to stop."""

    @tool(stop_after_tool_call=True)
    def final() -> str:
        return ""

    @tool(stop_after_tool_call=True, show_result=False)
    def quiet() -> str:
        return ""

    @tool(stop_after_successful_tool_call=True)
    def careful() -> str:
        return ""

    @tool
    def plain() -> str:
        return ""

    assert final.stop_after_tool_call and final.show_result
    assert quiet.stop_after_tool_call and not quiet.show_result
    assert careful.stop_after_successful_tool_call and careful.show_result
    assert final.stops_run(error=True) and final.stops_run(error=False)
    assert careful.stops_run(error=False) and not careful.stops_run(error=True)
    assert not plain.stops_run(error=False)
    assert not plain.show_result and not plain.requires_confirmation


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"requires_user_input": True}, "requires_user_input"),
        ({"user_input_fields": ["x"]}, "user_input_fields"),
        ({"external_execution": True}, "external_execution"),
        ({"external_execution_silent": True}, "external_execution_silent"),
        ({"show_results": True}, "show_results"),
    ],
)
def test_options_not_supported_or_unknown_are_refused_naming_the_option(
    options: dict[str, Any], named: str
) -> None:
    """An option Statebot cannot honour (or a misspelt one) is an error at decoration."""
    with pytest.raises(ValueError, match=named):

        @tool(**options)
        def anything() -> str:
            return ""


def test_bad_option_values_are_refused() -> None:
    """Hooks must be callables and the cache TTL positive."""
    with pytest.raises(TypeError, match="pre_hook"):
        tool(pre_hook="nope")(lambda: "")
    with pytest.raises(TypeError, match="tool_hooks"):
        tool(tool_hooks=[1])(lambda: "")
    with pytest.raises(ValueError, match="cache_ttl"):
        tool(cache_results=True, cache_ttl=0)(lambda: "")


def test_cache_results_answers_a_repeat_without_running_the_tool() -> None:
    """Same tool and arguments: the cached result; other arguments: a new call."""
    calls: list[str] = []

    @tool(cache_results=True)
    def weather(city: str) -> str:
        calls.append(city)
        return f"sunny in {city} #{len(calls)}"

    out = _run(
        Agent(tools=[weather]),
        [tool_call("weather", city="Oslo"), tool_call("weather", city="Oslo")],
        tool_call("weather", city="Rome"),
        "ok",
    )
    assert calls == ["Oslo", "Rome"]
    assert [t.result for t in out.tools] == [
        "sunny in Oslo #1",
        "sunny in Oslo #1",
        "sunny in Rome #2",
    ]


def test_cache_of_a_tool_that_sees_the_session_is_per_session_and_user() -> None:
    """A cached tool that reads run data never answers another session or user from its cache."""

    @tool(cache_results=True)
    def whoami(run_context: Any) -> str:
        return f"{run_context.user_id}@{run_context.session_id}"

    agent = Agent(tools=[whoami])
    first = _run(agent, tool_call("whoami"), "ok", session_id="a", user_id="ann")
    second = _run(agent, tool_call("whoami"), "ok", session_id="b", user_id="bob")
    assert first.tools[0].result == "ann@a"
    assert second.tools[0].result == "bob@b"


def test_cache_ttl_expires_entries() -> None:
    """An entry older than cache_ttl is a miss (clock injected, no sleeping)."""
    now = [1000.0]
    calls: list[int] = []

    @tool(cache_results=True, cache_ttl=10)
    def count() -> int:
        calls.append(1)
        return len(calls)

    assert count.cache is not None
    count.cache.clock = lambda: now[0]
    agent = Agent(tools=[count])
    assert _run(agent, tool_call("count"), "ok").tools[0].result == "1"
    now[0] += 9
    assert _run(agent, tool_call("count"), "ok").tools[0].result == "1"
    now[0] += 2
    assert _run(agent, tool_call("count"), "ok").tools[0].result == "2"


def test_cache_dir_keeps_results_across_a_restart(tmp_path: Path) -> None:
    """With cache_dir, a new process (a new Function) finds earlier results on disk."""
    calls: list[str] = []

    def define() -> Function:
        @tool(cache_results=True, cache_dir=str(tmp_path))
        def rates(currency: str) -> dict[str, Any]:
            calls.append(currency)
            return {"currency": currency, "rate": 1.5}

        return rates

    first = _run(Agent(tools=[define()]), tool_call("rates", currency="EUR"), "ok")
    second = _run(Agent(tools=[define()]), tool_call("rates", currency="EUR"), "ok")
    assert calls == ["EUR"]
    assert json.loads(second.tools[0].result) == json.loads(first.tools[0].result)
    assert list(tmp_path.iterdir())


def test_errors_are_never_cached() -> None:
    """A call that fails is not remembered: the next identical call runs again."""
    calls: list[int] = []

    @tool(cache_results=True)
    def flaky() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first call fails")
        return "fine"

    out = _run(Agent(tools=[flaky]), tool_call("flaky"), tool_call("flaky"), "ok")
    assert [t.error for t in out.tools] == [True, False]
    assert out.tools[1].result == "fine"


def test_name_description_and_strict_shape_the_schema() -> None:
    """name/description override; strict=True sends a strict schema (all required, no extras)."""

    @tool(name="find", description="Find things.", strict=True)
    def search(query: str, limit: int = 5) -> str:
        return query

    schema = search.to_openai()["function"]
    assert schema["name"] == "find" and schema["description"] == "Find things."
    assert schema["strict"] is True
    assert schema["parameters"]["required"] == ["query", "limit"]
    assert schema["parameters"]["additionalProperties"] is False
    assert "strict" not in Function(lambda: "").to_openai()["function"]


def test_tool_instructions_reach_the_system_message() -> None:
    """@tool(instructions=...) is added to the system message unless add_instructions=False."""

    @tool(instructions="Always search before answering.")
    def search(query: str) -> str:
        return query

    @tool(instructions="Never shown.", add_instructions=False)
    def hidden() -> str:
        return ""

    system = build_system_message(
        PromptSpec(instructions="Be brief."),
        state={},
        dependencies={},
        identity={},
        functions={"search": search, "hidden": hidden},
    )
    assert system is not None
    assert "Always search before answering." in system and "Never shown." not in system
