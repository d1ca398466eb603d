"""Run deadlines, tool timeouts and sync tools off the event loop (issue 8, item 5)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.exceptions import RunTimeoutError
from core.models.base import Message, Model, ModelResponse
from core.models.scripted import ScriptedModel, tool_call
from core.tools import tool


class HungModel(Model):
    """A model that never answers its first call, then answers "ok"."""

    def __init__(self) -> None:
        self.id = "hung"
        self.calls = 0

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        self.calls += 1
        if self.calls == 1:
            await asyncio.Event().wait()
        return ModelResponse(content="ok")


@pytest.fixture(params=["memory", "redis"])
async def db(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str
) -> AsyncIterator[BaseDb]:
    """Each test runs on the in-process lock and on the Redis lease."""
    if request.param == "memory":
        yield InMemoryDb()
        return
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, lock_ttl=1.0)
    yield store
    await store.aclose()


async def hang(session_state: dict[str, Any]) -> str:
    """Change the state, then never return."""
    session_state["touched"] = True
    await asyncio.Event().wait()
    return "never"


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "added"


async def test_hung_async_tool_frees_the_session_at_the_deadline(db: BaseDb) -> None:
    """A tool that never returns ends the run at its deadline; the next message is answered."""
    model = ScriptedModel([tool_call("add", item="a"), tool_call("hang"), "second answer"])
    agent = Agent(model, db=db, tools=[add, hang], run_timeout=0.3, session_id="s")
    with pytest.raises(RunTimeoutError, match=r"took longer than 0\.3 s") as caught:
        await asyncio.wait_for(agent.arun("go"), timeout=10)
    assert caught.value.saved  # the first batch was saved before the deadline
    output = await asyncio.wait_for(agent.arun("again"), timeout=10)
    assert output.content == "second answer"
    assert output.session_state == {"items": ["a"]}  # the hung call's change was undone


async def test_hung_model_frees_the_session_at_the_deadline(db: BaseDb) -> None:
    """A model that never answers ends the run at its deadline; nothing is saved from it."""
    agent = Agent(HungModel(), db=db, session_state={"n": 0}, run_timeout=0.3, session_id="m")
    with pytest.raises(RunTimeoutError) as caught:
        await asyncio.wait_for(agent.arun("go"), timeout=10)
    assert not caught.value.saved
    output = await asyncio.wait_for(agent.arun("again"), timeout=10)
    assert output.content == "ok"


async def test_queued_message_runs_right_after_a_hung_run(db: BaseDb) -> None:
    """A message queued behind a hung run gets the session once the deadline passes."""
    agent = Agent(HungModel(), db=db, run_timeout=0.3, session_id="q")
    first = asyncio.create_task(agent.arun("go"))
    await asyncio.sleep(0.05)
    second = await asyncio.wait_for(agent.arun("next"), timeout=10)
    assert second.content == "ok"
    with pytest.raises(RunTimeoutError):
        await first


async def test_tool_timeout_is_an_error_result_and_undone(db: BaseDb) -> None:
    """A tool past its timeout gives the model an error result; its changes are undone."""
    model = ScriptedModel([tool_call("hang"), "done"])
    agent = Agent(model, db=db, tools=[hang], tool_timeout=0.2, run_timeout=10, session_id="t")
    output = await agent.arun("go")
    assert output.content == "done"
    result = output.tools[0]
    assert result.error and result.result == (
        "Error: tool 'hang' timed out after 0.2 s; its changes were undone."
    )
    assert output.session_state == {}


async def test_tool_decorator_timeout_overrides_the_agent_default(db: BaseDb) -> None:
    """``@tool(timeout=...)`` sets one tool's limit."""

    @tool(timeout=0.1)
    async def slow() -> str:
        """Sleep."""
        await asyncio.sleep(30)
        return "late"

    assert slow.timeout == 0.1
    agent = Agent(ScriptedModel([tool_call("slow"), "done"]), db=db, tools=[slow])
    output = await asyncio.wait_for(agent.arun("go"), timeout=10)
    assert "timed out after 0.1 s" in output.tools[0].result


async def test_abandoned_sync_tool_never_reaches_the_store(db: BaseDb) -> None:
    """A sync tool that times out keeps running in its thread; what it writes later is dropped."""
    finished = threading.Event()

    def stubborn(session_state: dict[str, Any]) -> str:
        """Block, then write."""
        time.sleep(0.4)
        session_state["late"] = "written after the timeout"
        finished.set()
        return "late"

    model = ScriptedModel([tool_call("stubborn"), tool_call("add", item="x"), "done"])
    agent = Agent(
        model, db=db, tools=[stubborn, add], tool_timeout=0.1, run_timeout=10, session_id="a"
    )
    output = await agent.arun("go")
    assert output.tools[0].error and output.session_state == {"items": ["x"]}
    assert await asyncio.to_thread(finished.wait, 5)
    again = Agent(ScriptedModel(["hi"]), db=db, session_id="a")
    assert (await again.arun("state?")).session_state == {"items": ["x"]}


async def test_sync_tool_past_the_run_deadline_is_never_saved(db: BaseDb) -> None:
    """A sync tool still running at the run deadline: its later writes are never persisted."""
    finished = threading.Event()

    def slow_write(session_state: dict[str, Any]) -> str:
        """Block past the deadline, then write."""
        time.sleep(0.5)
        session_state["late"] = True
        finished.set()
        return "late"

    model = ScriptedModel([tool_call("slow_write"), "never"])
    agent = Agent(model, db=db, tools=[slow_write], run_timeout=0.2, session_id="d")
    with pytest.raises(RunTimeoutError):
        await agent.arun("go")
    assert await asyncio.to_thread(finished.wait, 5)
    await asyncio.sleep(0.05)
    record = await db.aload("d")
    assert record is None or "late" not in record.state


async def test_blocking_sync_tool_does_not_freeze_other_sessions(db: BaseDb) -> None:
    """A sync tool blocking in one session leaves the loop free: another session's run ends."""
    gate = threading.Event()

    def blocker() -> str:
        """Wait until the other session's run has finished."""
        return "released" if gate.wait(5) else "never released"

    slow = Agent(ScriptedModel([tool_call("blocker"), "done"]), db=db, tools=[blocker])
    fast = Agent(ScriptedModel([tool_call("add", item="y"), "fast done"]), db=db, tools=[add])
    slow_run = asyncio.create_task(slow.arun("block", session_id="slow"))
    await asyncio.sleep(0.05)
    fast_output = await fast.arun("quick", session_id="fast")
    gate.set()
    assert fast_output.content == "fast done"
    assert (await slow_run).tools[0].result == "released"


async def test_sync_hook_chain_runs_off_the_loop(db: BaseDb) -> None:
    """A sync hook around a sync tool runs in a worker thread, never on the event loop."""
    threads: list[str] = []

    def hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        threads.append(threading.current_thread().name)
        return function_call(**arguments)

    agent = Agent(
        ScriptedModel([tool_call("add", item="z"), "ok"]), db=db, tools=[add], tool_hooks=[hook]
    )
    output = await agent.arun("go")
    assert output.session_state == {"items": ["z"]}
    assert threads and threads[0] != threading.current_thread().name


async def test_run_timeout_must_be_positive() -> None:
    """A zero or negative deadline is refused when the agent is built."""
    with pytest.raises(ValueError, match="run_timeout"):
        Agent(run_timeout=0)
    with pytest.raises(ValueError, match="tool_timeout"):
        Agent(tool_timeout=-1)
