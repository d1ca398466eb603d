"""An Agent on OpenAIChat against the fake server: tool calls change session_state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.agent import Agent
from core.models.base import ModelError
from core.models.openai import OpenAIChat
from core.run.events import RunEvent
from core.testing import FakeOpenAIServer, HTTPFailure, tool_call
from core.utils.sync import run_sync


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the shopping list.

    Args:
        item: The item to add.
    """
    session_state["shopping_list"].append(item)
    return f"Added {item}"


@pytest.fixture
def chat(server: FakeOpenAIServer) -> Iterator[OpenAIChat]:
    """A model for sync runs; its client lives on the runtime's background loop."""
    model = OpenAIChat(base_url=server.base_url, api_key="sk-test", max_retries=1)
    yield model
    run_sync(model.aclose())


def _agent(model: OpenAIChat) -> Agent:
    return Agent(
        model=model,
        session_state={"owner": "Ada", "shopping_list": []},
        tools=[add_item],
        instructions="You keep {owner}'s shopping list.",
        add_session_state_to_context=True,
        db=None,
    )


def test_run_with_tool_call_changes_state(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    """A non-streaming run executes the model's tool call and keeps its change."""
    server.extend([tool_call("add_item", item="milk"), "Added milk."])
    agent = _agent(chat)
    output = agent.run("add milk")
    assert output.content == "Added milk."
    assert agent.get_session_state()["shopping_list"] == ["milk"]
    tool_message = server.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == "Added milk"
    assert tool_message["tool_call_id"] == server.requests[1]["messages"][-2]["tool_calls"][0]["id"]


def test_streamed_run_with_parallel_tool_calls(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    """A streaming run assembles streamed parallel calls, runs them, then streams the text."""
    server.extend(
        [
            [tool_call("add_item", item="eggs"), tool_call("add_item", item="bread")],
            "Added eggs and bread to the list.",
        ]
    )
    agent = _agent(chat)
    events: list[RunEvent] = list(agent.run("eggs and bread", stream=True))
    text = "".join(e.content for e in events if not e.is_final)
    assert text == "Added eggs and bread to the list."
    assert len([e for e in events if not e.is_final]) > 1
    assert events[-1].run_output is not None
    assert events[-1].run_output.session_state["shopping_list"] == ["eggs", "bread"]
    assert agent.get_session_state()["shopping_list"] == ["eggs", "bread"]
    assert all(request["stream"] for request in server.requests)


async def test_async_streamed_run(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """``arun(stream=True)`` on the test's own loop streams through the same adapter."""
    server.extend([tool_call("add_item", item="tea"), "Tea is on the list."])
    agent = _agent(model)
    chunks = [e.content async for e in agent.arun("add tea", stream=True) if not e.is_final]
    assert "".join(chunks) == "Tea is on the list."
    assert (await agent.aget_session_state())["shopping_list"] == ["tea"]


def test_system_message_has_templated_state(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    """The server receives instructions filled from session_state, and the state after tools."""
    server.extend([tool_call("add_item", item="milk"), "Done."])
    _agent(chat).run("add milk")
    first, second = (r["messages"][0] for r in server.requests)
    assert first["role"] == "system"
    assert "You keep Ada's shopping list." in first["content"]
    assert '"shopping_list": []' in first["content"]
    assert '"shopping_list": ["milk"]' in second["content"]


def test_model_failure_reaches_the_caller(server: FakeOpenAIServer, chat: OpenAIChat) -> None:
    """When the server keeps failing, the run raises ModelError and state is unchanged."""
    server.extend([HTTPFailure(500)] * 2)
    agent = _agent(chat)
    with pytest.raises(ModelError, match="HTTP 500"):
        agent.run("add milk")
    assert agent.get_session_state()["shopping_list"] == []
