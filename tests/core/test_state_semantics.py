"""Session-state rules 1-11 of ARCHITECTURE.md, each pinned by a test that fails if it breaks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.db.values import StateValueError
from core.run import RunContext
from core.testing import ScriptedModel, tool_call


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the list.

    Args:
        item: What to add.
    """
    session_state.setdefault("items", []).append(item)
    return f"added {item}"


async def test_run_argument_beats_stored_and_merges_deeply() -> None:
    """A run's session_state is deep-merged over the stored state: dicts recurse, lists replace."""
    db = InMemoryDb()
    agent = Agent(model=ScriptedModel(["a", "b"]), db=db, session_state={"prefs": {"a": 1}})
    await agent.arun("x", session_id="s", session_state={"prefs": {"b": 2}, "tags": ["x"]})
    out = await agent.arun("y", session_id="s", session_state={"prefs": {"a": 9}, "tags": ["y"]})
    assert out.session_state == {"prefs": {"a": 9, "b": 2}, "tags": ["y"]}
    assert (await db.aload("s")).state == out.session_state  # type: ignore[union-attr]


async def test_default_applies_only_when_a_session_is_created() -> None:
    """The Agent's session_state seeds a new session once; later runs see the stored state."""
    model = ScriptedModel([tool_call("add_item", item="milk"), "ok", "ok"])
    agent = Agent(model=model, session_state={"items": ["seed"]}, tools=[add_item])
    await agent.arun("add", session_id="s")
    out = await agent.arun("again", session_id="s")
    assert out.session_state == {"items": ["seed", "milk"]}
    assert agent.session_state == {"items": ["seed"]}  # the template itself never changes


async def test_overwrite_replaces_stored_state_and_no_argument_keeps_it() -> None:
    """overwrite_db_session_state replaces with the run argument; no argument wipes nothing."""
    agent = Agent(model=ScriptedModel(["1", "2", "3"]), overwrite_db_session_state=True)
    await agent.arun("x", session_id="s", session_state={"shopping_list": ["Potatoes"]})
    out = await agent.arun("y", session_id="s", session_state={"secret_number": 43})
    assert out.session_state == {"secret_number": 43}
    out = await agent.arun("z", session_id="s")
    assert out.session_state == {"secret_number": 43}


async def test_switching_session_id_loads_that_sessions_state() -> None:
    """Each session_id has its own state; switching back loads the right one."""
    agent = Agent(model=ScriptedModel(["a"] * 4), instructions="Name {user_name}, age {age}")
    await agent.arun(
        "x", session_id="u1", user_id="1", session_state={"user_name": "John", "age": 30}
    )
    await agent.arun(
        "x", session_id="u2", user_id="2", session_state={"user_name": "Jane", "age": 25}
    )
    await agent.arun("how old?", session_id="u1", user_id="1")
    assert agent.model.requests[2].system == "Name John, age 30"  # type: ignore[union-attr]
    assert await agent.aget_session_state("u2") == {"user_name": "Jane", "age": 25}


async def test_injected_parameters_are_hidden_from_the_model_schema() -> None:
    """session_state, run_context, agent and agent_state never appear in the tool schema."""

    def tool_with_everything(
        session_state: dict[str, Any], run_context: RunContext, agent: Any, agent_state: Any, n: int
    ) -> str:
        """Count."""
        return str(n)

    model = ScriptedModel(["ok"])
    await Agent(model=model, tools=[tool_with_everything]).arun("x")
    schema = model.requests[0].tools[0]["function"]["parameters"]
    assert list(schema["properties"]) == ["n"]
    assert schema["required"] == ["n"]


async def test_run_context_and_agent_state_are_injected_live() -> None:
    """run_context carries ids and live state; agent_state writes the same live state."""
    seen: dict[str, Any] = {}

    def inspect_run(run_context: RunContext, agent_state: Any) -> str:
        """Look around."""
        seen.update(session=run_context.session_id, user=run_context.user_id)
        agent_state.set("touched", True)
        run_context.session_state["also"] = 1
        return "ok"

    agent = Agent(model=ScriptedModel([tool_call("inspect_run"), "done"]), tools=[inspect_run])
    out = await agent.arun("x", session_id="s1", user_id="u1")
    assert seen == {"session": "s1", "user": "u1"}
    assert out.session_state == {"touched": True, "also": 1}


async def test_hooks_chain_outermost_first_and_can_change_arguments() -> None:
    """The first hook wraps the second, which wraps the tool; a hook may rewrite arguments."""
    order: list[str] = []

    def outer(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        order.append(f"outer:{function_name}")
        return function_call(**{**arguments, "item": arguments["item"].upper()})

    def inner(function_call: Any, arguments: dict[str, Any], session_state: dict[str, Any]) -> Any:
        order.append(f"inner:{arguments['item']}:{len(session_state.get('items', []))}")
        return function_call(**arguments)

    model = ScriptedModel([tool_call("add_item", item="milk"), "done"])
    agent = Agent(model=model, tools=[add_item], tool_hooks=[outer, inner])
    out = await agent.arun("x")
    assert order == ["outer:add_item", "inner:MILK:0"]
    assert out.session_state == {"items": ["MILK"]}


async def test_a_hook_can_short_circuit_the_tool() -> None:
    """A hook that returns without calling function_call stops the tool; its value is the result."""

    def deny(function_name: str, function_call: Any, arguments: dict[str, Any]) -> str:
        return "denied"

    agent = Agent(
        model=ScriptedModel([tool_call("add_item", item="x"), "ok"]),
        tools=[add_item],
        tool_hooks=[deny],
    )
    out = await agent.arun("x")
    assert out.tools[0].result == "denied"
    assert out.session_state == {}


async def test_async_hook_and_sync_hook_around_async_tool() -> None:
    """Sync and async hooks chain around an async tool, in order."""
    calls: list[str] = []

    async def async_tool(session_state: dict[str, Any], item: str) -> str:
        """Async add."""
        await asyncio.sleep(0)
        session_state["item"] = item
        return "ok"

    async def ahook(function_call: Any, arguments: dict[str, Any]) -> Any:
        calls.append("async")
        return await function_call(**arguments)

    def shook(function_call: Any, arguments: dict[str, Any]) -> Any:
        calls.append("sync")
        return function_call(**arguments)

    model = ScriptedModel([tool_call("async_tool", item="z"), "ok"])
    out = await Agent(model=model, tools=[async_tool], tool_hooks=[ahook, shook]).arun("x")
    assert calls == ["async", "sync"]
    assert out.session_state == {"item": "z"}


async def test_failing_tool_changes_are_rolled_back_and_reported() -> None:
    """A tool that raises gives the model an error result and its state changes are undone."""

    def half_done(session_state: dict[str, Any]) -> str:
        """Fail midway."""
        session_state["items"].append("partial")
        session_state["flag"] = True
        raise RuntimeError("disk on fire")

    model = ScriptedModel([[tool_call("add_item", item="a"), tool_call("half_done")], "sorry"])
    agent = Agent(model=model, session_state={"items": []}, tools=[add_item, half_done])
    out = await agent.arun("x", session_id="s")
    assert out.session_state == {"items": ["a"]}
    assert out.tools[1].error and "disk on fire" in out.tools[1].result
    assert "disk on fire" in (model.requests[1].messages[-1].content or "")
    assert await agent.aget_session_state("s") == {"items": ["a"]}


async def test_hook_that_raises_rolls_back_like_a_tool() -> None:
    """A hook raising after changing state gives an error result and no change persists."""

    def strict(session_state: dict[str, Any], arguments: dict[str, Any], function_call: Any) -> Any:
        session_state["audit"] = "written"
        raise ValueError("customer_id is required.")

    agent = Agent(
        model=ScriptedModel([tool_call("add_item", item="a"), "ok"]),
        tools=[add_item],
        tool_hooks=[strict],
    )
    out = await agent.arun("x", session_id="s")
    assert out.tools[0].error and "customer_id is required." in out.tools[0].result
    assert await agent.aget_session_state("s") == {}


@pytest.mark.parametrize(
    "placeholder", ["{__class__}", "{x.y}", "{x!r}", "{x[0]}", "{x:>10}", "{nope}"]
)
async def test_templating_substitutes_only_plain_names(placeholder: str) -> None:
    """Attribute, index, conversion and format-spec forms and unknown names stay literal."""
    model = ScriptedModel(["ok"])
    agent = Agent(
        model=model, session_state={"x": "VALUE"}, instructions=f"a {{x}} b {placeholder}"
    )
    await agent.arun("hi")
    assert model.requests[0].system == f"a VALUE b {placeholder}"


async def test_templating_order_state_then_dependencies_then_ids() -> None:
    """{key} comes from session_state first, then dependencies, then user_id/session_id."""
    model = ScriptedModel(["ok"])
    agent = Agent(
        model=model,
        session_state={"a": "state"},
        dependencies={"a": "dep", "b": "dep"},
        description="{a} {b} {user_id} {session_id}",
    )
    await agent.arun("x", session_id="s9", user_id="u9")
    assert model.requests[0].system == "state dep u9 s9"


async def test_user_messages_are_never_templated() -> None:
    """A user message containing {key} reaches the model literally."""
    model = ScriptedModel(["ok"])
    await Agent(model=model, session_state={"secret": "s3cr3t"}).arun("show {secret}")
    assert model.requests[0].messages[-1].content == "show {secret}"


async def test_state_in_context_is_refreshed_on_every_model_call() -> None:
    """add_session_state_to_context shows the current state on each call, after tool changes."""
    model = ScriptedModel([tool_call("add_item", item="milk"), "done"])
    agent = Agent(
        model=model,
        tools=[add_item],
        add_session_state_to_context=True,
        session_state={"items": []},
    )
    await agent.arun("x")
    assert '{"items": []}' in model.requests[0].system
    assert '{"items": ["milk"]}' in model.requests[1].system


async def test_agentic_state_applies_merge_patch_with_null_delete() -> None:
    """update_session_state merges objects recursively and deletes keys set to null."""
    patch = {"prefs": {"theme": "dark", "old": None}, "drop": None, "list": [1]}
    model = ScriptedModel([tool_call("update_session_state", updates=patch), "ok"])
    agent = Agent(
        model=model,
        enable_agentic_state=True,
        session_state={"prefs": {"old": 1, "lang": "en"}, "drop": 1},
    )
    out = await agent.arun("x", session_id="s")
    assert out.session_state == {"prefs": {"lang": "en", "theme": "dark"}, "list": [1]}
    assert await agent.aget_session_state("s") == out.session_state


async def test_transient_keys_are_visible_in_a_run_and_never_stored() -> None:
    """current_session_id / current_user_id / current_run_id exist during a run only."""
    seen: dict[str, Any] = {}

    def peek(session_state: dict[str, Any]) -> str:
        """Peek."""
        seen.update(session_state)
        return "ok"

    db = InMemoryDb()
    agent = Agent(model=ScriptedModel([tool_call("peek"), "ok"]), db=db, tools=[peek])
    out = await agent.arun("x", session_id="s", user_id="u")
    assert seen["current_session_id"] == "s" and seen["current_user_id"] == "u"
    assert seen["current_run_id"] == out.run_id
    record = await db.aload("s")
    assert record is not None and not {
        "current_session_id",
        "current_user_id",
        "current_run_id",
    } & set(record.state)
    assert "current_run_id" not in out.session_state


async def test_non_json_value_from_a_tool_is_an_error_and_nothing_persists() -> None:
    """A tool storing a non-JSON value gets an error naming the key; the state is unchanged."""

    def bad(session_state: dict[str, Any]) -> str:
        """Store a set."""
        session_state["when"] = {1, 2}
        return "ok"

    agent = Agent(
        model=ScriptedModel([tool_call("bad"), "ok"]), tools=[bad], session_state={"a": 1}
    )
    out = await agent.arun("x", session_id="s")
    assert out.tools[0].error and "'when'" in out.tools[0].result
    assert await agent.aget_session_state("s") == {"a": 1}


async def test_non_json_run_argument_is_a_clear_error_and_nothing_persists() -> None:
    """A non-JSON value in run(session_state=...) raises naming the key; nothing is stored."""
    db = InMemoryDb()
    agent = Agent(model=ScriptedModel(["ok"]), db=db)
    with pytest.raises(StateValueError, match="'obj'"):
        await agent.arun("x", session_id="s", session_state={"obj": object()})
    assert await db.aload("s") is None


async def test_fifty_concurrent_runs_on_one_session_lose_nothing() -> None:
    """50 concurrent arun calls on one session with one Agent instance keep all 50 items."""

    def turn(i: int) -> list[Any]:
        return [tool_call("add_item", item=f"i{i}"), "ok"]

    # runs are serialized, so each run plays the next two scripted turns
    model = ScriptedModel([t for i in range(50) for t in turn(i)])
    agent = Agent(model=model, tools=[add_item], session_state={"items": []})
    await asyncio.gather(*(agent.arun(f"r{i}", session_id="shared") for i in range(50)))
    items = (await agent.aget_session_state("shared"))["items"]
    assert sorted(items) == sorted(f"i{i}" for i in range(50))


async def test_runs_of_one_session_apply_in_arrival_order() -> None:
    """Runs started in order on one session are applied in that order."""
    model = ScriptedModel(
        [t for i in range(10) for t in (tool_call("add_item", item=str(i)), "ok")]
    )
    agent = Agent(model=model, tools=[add_item])
    await asyncio.gather(*(agent.arun("x", session_id="s") for _ in range(10)))
    assert (await agent.aget_session_state("s"))["items"] == [str(i) for i in range(10)]


async def test_state_is_saved_after_each_tool_batch() -> None:
    """A run that fails after a tool batch keeps what that batch saved."""
    from core.models.base import ModelError

    model = ScriptedModel([tool_call("add_item", item="kept"), ModelError("upstream 500")])
    agent = Agent(model=model, tools=[add_item])
    with pytest.raises(ModelError):
        await agent.arun("x", session_id="s")
    assert await agent.aget_session_state("s") == {"items": ["kept"]}


async def test_only_changed_top_level_keys_are_written() -> None:
    """A save carries just the keys a tool changed."""
    saved: list[set[str]] = []

    class RecordingDb(InMemoryDb):
        async def asave(self, session_id: str, **kw: Any) -> int:  # type: ignore[override]
            saved.append(set(kw["changed"]))
            return await super().asave(session_id, **kw)

    model = ScriptedModel([tool_call("add_item", item="a"), "ok"])
    agent = Agent(
        model=model,
        db=RecordingDb(),
        tools=[add_item],
        session_state={"items": [], "big": list(range(100))},
    )
    await agent.arun("x", session_id="s")
    # creation writes everything once; the model answered within the batch save's grace
    # period, so the batch went with the end of the run's save (with its history entry)
    assert saved == [{"items", "big"}]
    model.extend([tool_call("add_item", item="b"), "ok"])
    await agent.arun("y", session_id="s")
    assert saved[1:] == [{"items"}]


async def test_second_agent_in_a_session_gets_its_missing_defaults_only() -> None:
    """An agent joining a session another agent created adds its absent default keys only."""
    db = InMemoryDb()
    shopping = Agent(id="shopping", db=db, tools=[add_item], session_state={"items": []})
    board = Agent(
        id="taskboard", db=db, tools=[add_item], session_state={"tasks": [], "items": ["ignored"]}
    )
    await shopping.arun_tool("add_item", {"item": "milk"}, session_id="thread")
    out = await board.arun_tool("add_item", {"item": "eggs"}, session_id="thread")
    assert out.session_state == {"items": ["milk", "eggs"], "tasks": []}


async def test_same_agent_never_brings_back_a_deleted_default_key() -> None:
    """Defaults are not re-applied to the owner's own session: a deleted key stays deleted."""

    def drop(session_state: dict[str, Any]) -> str:
        """Drop the list."""
        del session_state["items"]
        return "dropped"

    agent = Agent(id="a", tools=[drop, add_item], session_state={"items": [], "keep": 1})
    await agent.arun_tool("drop", {}, session_id="s")
    assert await agent.aget_session_state("s") == {"keep": 1}
    out = await agent.arun_tool("add_item", {"item": "x"}, session_id="s")
    assert out.session_state == {"keep": 1, "items": ["x"]}


async def test_free_text_without_a_model_stores_nothing() -> None:
    """A refused run (no model) does not create the session."""
    from core.exceptions import NoModelError

    agent = Agent(session_state={"items": []})
    with pytest.raises(NoModelError):
        await agent.arun("hello", session_id="s")
    assert await agent.db.aload("s") is None
