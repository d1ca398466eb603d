"""OpenAIResponses: the Responses API model through the real ``openai`` client.

The fake server answers ``/v1/responses`` in that API's shapes, so these tests check
the translation both ways: messages to input items and tools to function tools on the
way out, output items, streamed events and usage on the way back.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import openai
import pytest

from core.models.base import Message, ModelError, ModelResponse, ModelTimeoutError, ToolCall, Usage
from core.models.openai import OpenAIChat, OpenAIResponses
from core.models.openai.responses import OpenAIResponses as ResponsesAtModulePath
from core.testing import Delayed, FakeOpenAIServer, HTTPFailure, MalformedBody, tool_call

QUESTION = [Message("user", "hi")]
ADD_ITEM = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Add an item to the list.",
        "parameters": {"type": "object", "properties": {"item": {"type": "string"}}},
    },
}


@pytest.fixture
async def responses(server: FakeOpenAIServer) -> AsyncIterator[OpenAIResponses]:
    """OpenAIResponses aimed at the fake server, with retries that finish quickly."""
    model = OpenAIResponses(base_url=server.base_url, api_key="sk-test", max_retries=2)
    yield model
    await model.aclose()


async def _stream(
    model: OpenAIResponses, messages: list[Message], tools: list[dict[str, object]]
) -> tuple[list[str], ModelResponse]:
    chunks: list[str] = []
    final: ModelResponse | None = None
    async for item in model.astream(messages, tools):
        if isinstance(item, ModelResponse):
            final = item
        else:
            assert final is None, "text deltas come before the whole turn"
            chunks.append(item)
    assert final is not None
    return chunks, final


def test_agnos_import_paths_name_the_class() -> None:
    """``core.models.openai.OpenAIResponses`` is the class at ``…openai.responses``."""
    assert OpenAIResponses is ResponsesAtModulePath
    assert OpenAIResponses().name == "OpenAIResponses"


async def test_text_reply_and_usage(server: FakeOpenAIServer, responses: OpenAIResponses) -> None:
    """A message output item becomes the content; the usage is mapped."""
    server.extend([ModelResponse(content="Milk is on the list.", usage=Usage(12, 5))])
    response = await responses.ainvoke(QUESTION, [])
    assert response == ModelResponse(content="Milk is on the list.", usage=Usage(12, 5))
    assert server.paths == ["/v1/responses"]
    assert "tools" not in server.requests[0]  # some servers reject an empty list


async def test_function_call_items_become_tool_calls(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """Parallel function_call items come back as tool calls, in order, keyed by call_id."""
    calls = [tool_call("add_item", item="eggs"), tool_call("add_item", item="jam")]
    server.extend([calls])
    response = await responses.ainvoke(QUESTION, [ADD_ITEM])
    assert response.tool_calls == tuple(calls)
    assert response.content is None


async def test_conversation_is_sent_as_input_items(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """System, user, assistant text, function calls and their outputs, in order."""
    server.extend(["done"])
    call = ToolCall(id="call_7", name="add_item", arguments='{"item": "milk"}')
    messages = [
        Message("system", "You keep the list."),
        Message("user", "add milk"),
        Message("assistant", "Adding it.", [call]),
        Message("tool", "Added milk", tool_call_id="call_7"),
        Message("assistant", "Milk added."),
        Message("user", "thanks"),
    ]
    await responses.ainvoke(messages, [ADD_ITEM])
    assert server.requests[0]["input"] == [
        {"role": "developer", "content": "You keep the list."},
        {"role": "user", "content": "add milk"},
        {"role": "assistant", "content": "Adding it."},
        {
            "type": "function_call",
            "call_id": "call_7",
            "name": "add_item",
            "arguments": '{"item": "milk"}',
        },
        {"type": "function_call_output", "call_id": "call_7", "output": "Added milk"},
        {"role": "assistant", "content": "Milk added."},
        {"role": "user", "content": "thanks"},
    ]


async def test_tools_are_responses_function_tools(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """A Chat Completions tool schema is sent flat, strict only when the tool asks."""
    server.extend(["ok"])
    strict = {"type": "function", "function": {**ADD_ITEM["function"], "strict": True}}  # type: ignore[dict-item]
    await responses.ainvoke(QUESTION, [ADD_ITEM, strict])
    loose, tight = server.requests[0]["tools"]
    assert loose == {
        "type": "function",
        "name": "add_item",
        "description": "Add an item to the list.",
        "parameters": {"type": "object", "properties": {"item": {"type": "string"}}},
        "strict": False,
    }
    assert tight["strict"] is True


async def test_settings_are_sent(server: FakeOpenAIServer) -> None:
    """Model id, temperature, max_output_tokens and store reach the request."""
    server.extend(["ok"])
    model = OpenAIResponses(
        id="gpt-5-mini",
        base_url=server.base_url,
        api_key="k",
        temperature=0.2,
        max_output_tokens=64,
        store=False,
    )
    await model.ainvoke(QUESTION, [])
    await model.aclose()
    request = server.requests[0]
    assert (request["model"], request["temperature"]) == ("gpt-5-mini", 0.2)
    assert (request["max_output_tokens"], request["store"]) == (64, False)


async def test_streamed_text_arrives_in_deltas_with_usage(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """output_text deltas are yielded one by one; response.completed carries the usage."""
    text = "Milk, eggs and bread are on the list."
    server.extend([ModelResponse(content=text, usage=Usage(input_tokens=9, output_tokens=8))])
    chunks, final = await _stream(responses, QUESTION, [])
    assert len(chunks) > 1 and "".join(chunks) == text
    assert final == ModelResponse(content=text, usage=Usage(9, 8))
    assert server.requests[0]["stream"] is True


async def test_streamed_function_calls_are_assembled(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """Arguments streamed in several deltas per call come back whole, with text before."""
    calls = (
        tool_call("add_task", title="Review the Q2 roadmap", category="work"),
        tool_call("add_item", item="bread"),
    )
    server.extend([ModelResponse(content="Adding both.", tool_calls=calls)])
    chunks, final = await _stream(responses, QUESTION, [ADD_ITEM])
    assert "".join(chunks) == "Adding both."
    assert final.tool_calls == calls


async def test_http_error_reads_like_the_chat_models(server: FakeOpenAIServer) -> None:
    """The same failure gives the same ModelError text on both models."""
    chat = OpenAIChat(id="m", base_url=server.base_url, api_key="k", max_retries=0)
    responses = OpenAIResponses(id="m", base_url=server.base_url, api_key="k", max_retries=0)
    server.extend([HTTPFailure(400, "unknown model 'm'")] * 2)
    errors = []
    for model in (chat, responses):
        with pytest.raises(ModelError) as caught:
            await model.ainvoke(QUESTION, [])
        errors.append(str(caught.value))
        await model.aclose()
    assert errors[0] == errors[1]
    assert "HTTP 400: unknown model 'm'" in errors[1]


async def test_server_errors_are_retried_then_reported(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """A 500 is retried by the client; a streamed call that keeps failing is a ModelError."""
    server.extend([HTTPFailure(500), "recovered", *[HTTPFailure(502)] * 3])
    assert (await responses.ainvoke(QUESTION, [])).content == "recovered"
    with pytest.raises(ModelError, match="HTTP 502"):
        await _stream(responses, QUESTION, [])
    assert len(server.requests) == 5


async def test_malformed_body_is_a_model_error(
    server: FakeOpenAIServer, responses: OpenAIResponses
) -> None:
    """A body that is not JSON, whole or streamed, is a ModelError."""
    server.extend([MalformedBody(), MalformedBody()])
    with pytest.raises(ModelError, match="malformed response"):
        await responses.ainvoke(QUESTION, [])
    with pytest.raises(ModelError, match="malformed response"):
        await _stream(responses, QUESTION, [])


async def test_timeout_is_a_model_timeout_error(server: FakeOpenAIServer) -> None:
    """A server slower than the timeout raises ModelTimeoutError, as for the chat model."""
    server.extend([Delayed(5.0, "too late")])
    model = OpenAIResponses(base_url=server.base_url, api_key="k", timeout=0.05, max_retries=0)
    with pytest.raises(ModelTimeoutError, match=r"did not answer within 0\.05s"):
        await model.ainvoke(QUESTION, [])
    await model.aclose()


async def test_the_requests_are_the_ones_create_would_send(server: FakeOpenAIServer) -> None:
    """The adapter posts without the client's parameter transform: whole and streamed,
    the server gets the body and headers ``responses.create`` sends."""
    server.extend(["ok", "ok", "ok", "ok"])
    model = OpenAIResponses(
        base_url=server.base_url, api_key="sk-test", temperature=0.3, extra_body={"seed": 7}
    )
    messages = [Message("system", "Be brief."), Message("user", "hi")]
    await model.ainvoke(messages, [ADD_ITEM])
    await _stream(model, messages, [ADD_ITEM])
    await model.aclose()
    params = model._params(messages, [ADD_ITEM], None)
    extra = params.pop("extra_body")
    client = openai.AsyncOpenAI(
        base_url=server.base_url,
        api_key="sk-test",
        timeout=model.timeout,
        max_retries=model.max_retries,
    )
    await client.responses.create(**params, extra_body=extra)
    stream = await client.responses.create(**params, extra_body=extra, stream=True)
    async with stream:
        async for _ in stream:
            pass
    await client.close()
    assert server.requests[0] == server.requests[2]
    assert server.requests[1] == server.requests[3]
    assert server.requests[1]["stream"] is True and "stream" not in server.requests[0]
    assert server.headers[0] == server.headers[2]
    assert server.headers[1] == server.headers[3]
    assert server.headers[0]["authorization"] == "Bearer sk-test"
