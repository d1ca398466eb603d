"""OpenAIChat, non-streaming, through the real openai client against the fake server."""

from __future__ import annotations

import asyncio

import openai

from core.models.base import Message, ModelResponse, ToolCall, Usage
from core.models.openai import OpenAIChat
from core.models.openai.chat import OpenAIChat as OpenAIChatFromChat
from core.testing import FakeOpenAIServer, tool_call
from core.utils.sync import run_sync

ADD_ITEM = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Add an item.",
        "parameters": {"type": "object", "properties": {"item": {"type": "string"}}},
    },
}


def test_both_import_paths_name_the_same_class() -> None:
    """core.models.openai and core.models.openai.chat export one OpenAIChat (seed 003)."""
    assert OpenAIChat is OpenAIChatFromChat


async def test_text_reply(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """A text answer comes back as content without tool calls."""
    server.extend(["Hello from the fake server."])
    response = await model.ainvoke([Message("user", "hi")], [])
    assert response.content == "Hello from the fake server."
    assert response.tool_calls == ()


async def test_usage_is_mapped(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """prompt/completion token counts become Usage input/output tokens."""
    server.extend([ModelResponse(content="ok", usage=Usage(input_tokens=12, output_tokens=3))])
    response = await model.ainvoke([Message("user", "hi")], [])
    assert response.usage == Usage(input_tokens=12, output_tokens=3)


async def test_single_tool_call(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """A tool call keeps its id, name and arguments text."""
    call = tool_call("add_item", item="milk")
    server.extend([call])
    response = await model.ainvoke([Message("user", "add milk")], [ADD_ITEM])
    assert response.tool_calls == (call,)
    assert response.content is None


async def test_parallel_tool_calls_keep_order(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Several tool calls in one turn arrive together, in the server's order."""
    calls = [tool_call("add_item", item="eggs"), tool_call("add_item", item="bread")]
    server.extend([calls])
    response = await model.ainvoke([Message("user", "eggs and bread")], [ADD_ITEM])
    assert response.tool_calls == tuple(calls)


async def test_invalid_arguments_are_kept_raw(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Bad JSON arguments reach the runtime untouched, so it can report them to the model."""
    server.extend([tool_call("add_item", _raw_arguments='{"item": "mi')])
    response = await model.ainvoke([Message("user", "add")], [ADD_ITEM])
    assert response.tool_calls[0].arguments == '{"item": "mi'


async def test_tools_are_passed_through(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """The tool schemas are sent as given, with the model id."""
    server.extend(["ok"])
    await model.ainvoke([Message("user", "hi")], [ADD_ITEM])
    assert server.requests[0]["tools"] == [ADD_ITEM]
    assert server.requests[0]["model"] == "gpt-4o-mini"


async def test_tools_omitted_when_empty(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """No tools means no ``tools`` key: some servers reject an empty list."""
    server.extend(["ok"])
    await model.ainvoke([Message("user", "hi")], [])
    assert "tools" not in server.requests[0]


async def test_messages_are_serialized(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """System, user, assistant-with-tool-calls and tool messages use the wire format."""
    server.extend(["done"])
    call = ToolCall(id="call_a", name="add_item", arguments='{"item": "milk"}')
    history = [
        Message("system", "You keep a list."),
        Message("user", "add milk"),
        Message("assistant", None, [call]),
        Message("tool", "added milk", tool_call_id="call_a", name="add_item"),
    ]
    await model.ainvoke(history, [ADD_ITEM])
    assert server.requests[0]["messages"] == [
        {"role": "system", "content": "You keep a list."},
        {"role": "user", "content": "add milk"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "add_item", "arguments": '{"item": "milk"}'},
                }
            ],
        },
        {"role": "tool", "content": "added milk", "tool_call_id": "call_a"},
    ]


async def test_sampling_settings_are_sent(server: FakeOpenAIServer) -> None:
    """temperature, max_tokens and extra_body reach the server."""
    server.extend(["ok"])
    chat = OpenAIChat(
        id="llama3.1",
        base_url=server.base_url,
        api_key="k",
        temperature=0.2,
        max_tokens=64,
        extra_body={"keep_alive": "5m"},
    )
    await chat.ainvoke([Message("user", "hi")], [])
    await chat.aclose()
    sent = server.requests[0]
    assert (sent["model"], sent["temperature"], sent["max_tokens"]) == ("llama3.1", 0.2, 64)
    assert sent["keep_alive"] == "5m"


async def test_unset_settings_are_not_sent(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Without temperature or max_tokens the server's own defaults apply."""
    server.extend(["ok"])
    await model.ainvoke([Message("user", "hi")], [])
    assert "temperature" not in server.requests[0]
    assert "max_tokens" not in server.requests[0]


def test_one_instance_serves_several_event_loops(server: FakeOpenAIServer) -> None:
    """The same model works from asyncio.run and from the runtime's background loop."""
    server.extend(["one", "two", "three"])
    chat = OpenAIChat(base_url=server.base_url, api_key="k")
    question = [Message("user", "hi")]
    first = asyncio.run(chat.ainvoke(question, []))
    second = run_sync(chat.ainvoke(question, []))
    third = asyncio.run(chat.ainvoke(question, []))
    run_sync(chat.aclose())
    assert [first.content, second.content, third.content] == ["one", "two", "three"]


async def test_the_request_is_the_one_create_would_send(server: FakeOpenAIServer) -> None:
    """The adapter posts without the client's parameter transform: the server gets the
    same path, body and headers (bearer key included) as from ``chat.completions.create``."""
    server.extend(["ok", "ok"])
    chat = OpenAIChat(
        id="m", base_url=server.base_url, api_key="k", temperature=0.3, extra_body={"seed": 7}
    )
    messages = [Message("system", "Be brief."), Message("user", "hi")]
    await chat.ainvoke(messages, [ADD_ITEM])
    await chat.aclose()
    params = chat._params(messages, [ADD_ITEM])
    extra = params.pop("extra_body")
    client = openai.AsyncOpenAI(
        base_url=server.base_url, api_key="k", timeout=chat.timeout, max_retries=chat.max_retries
    )
    await client.chat.completions.create(**params, extra_body=extra)
    await client.close()
    assert server.requests[0] == server.requests[1]
    assert server.paths[0] == server.paths[1]
    ours, theirs = server.headers
    assert ours["authorization"] == "Bearer k"
    assert ours == theirs
