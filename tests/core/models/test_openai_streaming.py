"""OpenAIChat.astream: text chunks and streamed tool calls through the real openai client."""

from __future__ import annotations

import openai

from core.models.base import Message, ModelResponse, ToolCall, Usage
from core.models.openai import OpenAIChat
from core.testing import FakeOpenAIServer, tool_call

QUESTION = [Message("user", "hi")]


async def _collect(model: OpenAIChat) -> tuple[list[str], ModelResponse]:
    chunks: list[str] = []
    final: ModelResponse | None = None
    async for item in model.astream(QUESTION, []):
        if isinstance(item, ModelResponse):
            final = item
        else:
            assert final is None, "text chunks must come before the final response"
            chunks.append(item)
    assert final is not None
    return chunks, final


async def test_text_arrives_in_several_chunks(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Streamed text is yielded piece by piece, then whole in the final response."""
    server.extend(["Milk, eggs and bread are on the list."])
    chunks, final = await _collect(model)
    assert len(chunks) > 1
    assert "".join(chunks) == "Milk, eggs and bread are on the list."
    assert final.content == "Milk, eggs and bread are on the list."
    assert final.tool_calls == ()


async def test_stream_asks_for_usage(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """The request streams and asks for the usage chunk, which is mapped."""
    server.extend([ModelResponse(content="ok", usage=Usage(input_tokens=7, output_tokens=2))])
    _, final = await _collect(model)
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["stream_options"] == {"include_usage": True}
    assert final.usage == Usage(input_tokens=7, output_tokens=2)


async def test_streamed_tool_call_is_assembled(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Arguments split over several deltas come back as one whole ToolCall."""
    call = tool_call("add_task", title="Review the Q2 roadmap", category="work")
    server.extend([call])
    chunks, final = await _collect(model)
    assert chunks == []
    assert final.tool_calls == (call,)
    assert final.content is None


async def test_streamed_parallel_tool_calls(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Parallel calls are assembled by index, each with its own id and arguments."""
    calls = [
        tool_call("add_item", item="eggs"),
        tool_call("add_item", item="bread"),
        tool_call("remove_item", item="milk"),
    ]
    server.extend([calls])
    _, final = await _collect(model)
    assert final.tool_calls == tuple(calls)


async def test_text_and_tool_call_in_one_turn(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """A turn with both text and a tool call streams the text and returns both."""
    call = tool_call("add_item", item="jam")
    server.extend([ModelResponse(content="Adding jam now.", tool_calls=(call,))])
    chunks, final = await _collect(model)
    assert "".join(chunks) == "Adding jam now."
    assert final.content == "Adding jam now."
    assert final.tool_calls == (call,)


async def test_streamed_raw_arguments_kept(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Invalid streamed JSON is kept as text, for the runtime to report."""
    server.extend([tool_call("add_item", _raw_arguments='{"item": milk}')])
    _, final = await _collect(model)
    assert final.tool_calls == (ToolCall(final.tool_calls[0].id, "add_item", '{"item": milk}'),)


async def test_the_stream_request_is_the_one_create_would_send(
    server: FakeOpenAIServer, model: OpenAIChat
) -> None:
    """Streaming posts without the client's transform too: same body and headers."""
    server.extend(["ok", "ok"])
    await _collect(model)
    client = openai.AsyncOpenAI(
        base_url=server.base_url,
        api_key=model.api_key,
        timeout=model.timeout,
        max_retries=model.max_retries,
    )
    stream = await client.chat.completions.create(
        **model._params(QUESTION, []), stream=True, stream_options={"include_usage": True}
    )
    async with stream:
        async for _ in stream:
            pass
    await client.close()
    assert server.requests[0] == server.requests[1]
    assert server.headers[0] == server.headers[1]
