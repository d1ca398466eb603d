"""An Agent on OpenAIResponses against the fake server, on every store.

The Responses model runs the same loop as the chat model: its tool calls change
session_state under the session's lease and are saved; it streams; its usage is
counted into the run's metrics and into the budgets.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.exceptions import BudgetExceededError
from core.governance.budgets.model import Budget
from core.governance.budgets.report import usage_report
from core.models.base import ModelResponse, Usage
from core.models.openai import OpenAIResponses
from core.run.events import RunEvent
from core.testing import FakeOpenAIServer, tool_call
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the shopping list.

    Args:
        item: The item to add.
    """
    session_state["shopping_list"].append(item)
    return f"Added {item}"


@pytest.fixture
async def responses(server: FakeOpenAIServer) -> AsyncIterator[OpenAIResponses]:
    """OpenAIResponses aimed at the fake server."""
    model = OpenAIResponses(base_url=server.base_url, api_key="sk-test", max_retries=1)
    yield model
    await model.aclose()


def _agent(model: OpenAIResponses, store: BaseDb, **options: Any) -> Agent:
    return Agent(
        model=model,
        db=store,
        session_state={"owner": "Ada", "shopping_list": []},
        tools=[add_item],
        instructions="You keep {owner}'s shopping list.",
        **options,
    )


async def test_tool_call_changes_stored_state(
    server: FakeOpenAIServer, responses: OpenAIResponses, store: BaseDb
) -> None:
    """The model's function call runs the tool; the change is stored; the output went back."""
    server.extend([tool_call("add_item", item="milk"), "Added milk."])
    agent = _agent(responses, store)
    output = await agent.arun("add milk", session_id="s", user_id="u")
    assert output.content == "Added milk."
    assert (await agent.aget_session_state(session_id="s"))["shopping_list"] == ["milk"]
    stored = await store.aload("s")
    assert stored is not None and stored.state["shopping_list"] == ["milk"]
    first, second = server.requests
    assert first["input"][0] == {"role": "developer", "content": "You keep Ada's shopping list."}
    assert [t["name"] for t in first["tools"]] == ["add_item"]
    call, result = second["input"][-2:]
    assert call["type"] == "function_call" and call["name"] == "add_item"
    assert result == {
        "type": "function_call_output",
        "call_id": call["call_id"],
        "output": "Added milk",
    }


async def test_streamed_run_emits_events_and_keeps_the_change(
    server: FakeOpenAIServer, responses: OpenAIResponses, store: BaseDb
) -> None:
    """A streamed run: tool call events, text in several content events, the state stored."""
    server.extend(
        [
            [tool_call("add_item", item="eggs"), tool_call("add_item", item="bread")],
            "Added eggs and bread to the list.",
        ]
    )
    agent = _agent(responses, store)
    events = [
        event
        async for event in agent.arun(
            "eggs and bread", session_id="s", stream=True, stream_events=True
        )
    ]
    kinds = [event.event for event in events]
    assert kinds.count(RunEvent.tool_call_started) == 2
    assert kinds.count(RunEvent.tool_call_completed) == 2
    content = [e.content for e in events if e.event == RunEvent.run_content]
    assert len(content) > 1 and "".join(content) == "Added eggs and bread to the list."
    assert kinds[-1] == RunEvent.run_completed
    state = await agent.aget_session_state(session_id="s")
    assert state["shopping_list"] == ["eggs", "bread"]
    assert all(request["stream"] for request in server.requests)


async def test_usage_is_counted_into_metrics_and_budgets(
    server: FakeOpenAIServer, responses: OpenAIResponses, store: BaseDb
) -> None:
    """Each call's usage adds to the run's metrics and to the session's daily budget."""
    server.extend(
        [
            ModelResponse(tool_calls=(tool_call("add_item", item="tea"),), usage=Usage(40, 10)),
            ModelResponse(content="Tea added.", usage=Usage(60, 5)),
        ]
    )
    budget = Budget(tokens_per_session=100)
    agent = _agent(responses, store, budget=budget)
    output = await agent.arun("add tea", session_id="s", user_id="u")
    assert (output.metrics.input_tokens, output.metrics.output_tokens) == (100, 15)
    report = await usage_report(store, budget, session_id="s")
    assert report.as_dict()["scopes"][0]["tokens"] == 115
    assert report.as_dict()["scopes"][0]["exhausted"] is True
    with pytest.raises(BudgetExceededError):  # refused before the model is asked
        await agent.arun("and milk", session_id="s", user_id="u")
    assert len(server.requests) == 2
