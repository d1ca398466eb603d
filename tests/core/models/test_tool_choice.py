"""``Agent(tool_choice=...)``: sent with every model call that offers tools, in each
API's own shape (Chat Completions nests the function's name, Responses does not)."""

from __future__ import annotations

import pytest

from core.agent import Agent
from core.models.openai import OpenAIChat, OpenAIResponses
from core.testing import FakeOpenAIServer, tool_call


def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize("model_class", [OpenAIChat, OpenAIResponses])
def test_forced_function_is_sent_in_each_apis_shape(model_class: type) -> None:
    with FakeOpenAIServer([tool_call("weather", city="Oslo"), "Sunny."]) as server:
        model = model_class(base_url=server.base_url, api_key="sk-test")
        agent = Agent(
            model=model, tools=[weather], tool_choice={"type": "function", "name": "weather"}
        )
        assert agent.run("weather?").content == "Sunny."
    chat = {"type": "function", "function": {"name": "weather"}}
    responses = {"type": "function", "name": "weather"}
    wanted = chat if model_class is OpenAIChat else responses
    assert [r["tool_choice"] for r in server.requests] == [wanted, wanted]


@pytest.mark.parametrize("choice", ["none", "auto", "required"])
def test_a_named_choice_is_sent_as_it_is(choice: str) -> None:
    with FakeOpenAIServer(["Fine."]) as server:
        model = OpenAIResponses(base_url=server.base_url, api_key="sk-test")
        Agent(model=model, tools=[weather], tool_choice=choice).run("weather?")
    assert server.requests[0]["tool_choice"] == choice


def test_no_choice_or_no_tools_sends_none() -> None:
    with FakeOpenAIServer(["a", "b"]) as server:
        model = OpenAIChat(base_url=server.base_url, api_key="sk-test")
        Agent(model=model, tools=[weather]).run("x")
        Agent(model=model, tool_choice="auto").run("y")  # no tools: nothing to choose
    assert all("tool_choice" not in r for r in server.requests)


def test_a_bad_choice_is_refused_when_the_agent_is_built() -> None:
    with pytest.raises(ValueError, match="tool_choice"):
        Agent(tool_choice="sometimes")
