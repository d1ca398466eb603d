"""RetryAgentRun and StopAgentRun raised from tools, with Agno's semantics, on every store.

A tool that raises RetryAgentRun hands its message to the model as the tool's result
and the run goes on (the model is asked again); StopAgentRun ends the run after the
tool call, with the message as the answer. Either way the tool's state changes stand
(Agno's shopping-list examples rely on it), and the extra messages the exception
carries join the conversation.
"""

from __future__ import annotations

from typing import Any

from core.agent import Agent
from core.db.base import BaseDb
from core.exceptions import AgentRunException, RetryAgentRun, StopAgentRun
from core.models.base import Message
from core.models.scripted import ScriptedModel, tool_call
from core.run import RunContext
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store


def add_item(run_context: RunContext, item: str) -> str:
    """Add an item; asks for more until the list holds three (Agno's cookbook shape)."""
    state = run_context.session_state
    assert state is not None
    state.setdefault("shopping_list", []).append(item)
    missing = 3 - len(state["shopping_list"])
    if missing > 0:
        raise RetryAgentRun(
            f"Shopping list is: {state['shopping_list']}. Add {missing} more items.",
            user_message="Please keep going.",
        )
    return f"The shopping list is now: {state['shopping_list']}"


def stop_item(run_context: RunContext, item: str) -> str:
    """Add an item, then stop the run."""
    state = run_context.session_state
    assert state is not None
    state.setdefault("shopping_list", []).append(item)
    raise StopAgentRun(f"Stopped with {state['shopping_list']}.")


def test_the_exceptions_are_agnos_hierarchy() -> None:
    retry = RetryAgentRun("again", agent_message="noted")
    stop = StopAgentRun("halt")
    assert isinstance(retry, AgentRunException) and isinstance(stop, AgentRunException)
    assert not retry.stop_execution and stop.stop_execution
    assert retry.agent_message == "noted" and str(stop) == "halt"


async def test_retry_returns_the_message_to_the_model_and_keeps_the_change(
    store: BaseDb,
) -> None:
    seen: list[list[Message]] = []

    def turn(messages: list[Message], tools: list[dict[str, Any]]) -> Any:
        seen.append(list(messages))
        added = sum(1 for m in messages if m.role == "tool")
        return tool_call("add_item", item=f"item{added}") if added < 3 else "three items"

    agent = Agent(model=ScriptedModel([turn] * 4), db=store, tools=[add_item])
    output = await agent.arun("add items", session_id="s")
    assert output.content == "three items"
    state = await agent.aget_session_state(session_id="s")
    assert state["shopping_list"] == ["item0", "item1", "item2"]
    second = seen[1]
    tool_results = [m for m in second if m.role == "tool"]
    assert tool_results[-1].content.startswith("Shopping list is: ['item0']. Add 2 more")
    assert second[-1].role == "user" and second[-1].content == "Please keep going."
    assert [t.error for t in output.tools] == [True, True, False]


async def test_stop_ends_the_run_after_the_tool_with_its_message(store: BaseDb) -> None:
    calls: list[int] = []

    def turn(messages: list[Message], tools: list[dict[str, Any]]) -> Any:
        calls.append(1)
        return tool_call("stop_item", item="milk")

    agent = Agent(model=ScriptedModel([turn] * 3), db=store, tools=[stop_item])
    output = await agent.arun("add milk", session_id="s")
    assert len(calls) == 1  # the model was not asked again
    assert output.content == "Stopped with ['milk']."
    state = await agent.aget_session_state(session_id="s")
    assert state["shopping_list"] == ["milk"]
