"""FakeOpenAIServer's ``/v1/responses``, seen through the plain openai client.

The client parses every event into the SDK's own types, so these tests check that the
fake speaks the Responses API as OpenAI does, not only as OpenAIResponses reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputMessage,
    ResponseTextDeltaEvent,
)

from core.models.base import ModelResponse, Usage
from core.testing import FakeOpenAIServer, tool_call


@pytest.fixture
def client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    """A sync openai client without retries."""
    with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=5) as sync:
        yield sync


def test_whole_response_has_output_items_and_usage(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """Text and calls come as a message item and function_call items; usage as scripted."""
    calls = (tool_call("add", item="milk"),)
    server.extend([ModelResponse(content="Adding milk.", tool_calls=calls, usage=Usage(4, 6))])
    response = client.responses.create(model="m", input="add milk")
    message, call = response.output
    assert isinstance(message, ResponseOutputMessage) and response.output_text == "Adding milk."
    assert isinstance(call, ResponseFunctionToolCall)
    assert (call.call_id, call.name, call.arguments) == (calls[0].id, "add", '{"item": "milk"}')
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (4, 6)
    assert response.status == "completed"
    assert server.paths == ["/v1/responses"]


def test_stream_sends_typed_events_in_order(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """created, item added, deltas, done events, and completed with the usage, numbered."""
    server.extend(
        [ModelResponse(content="one two", tool_calls=(tool_call("add", item="a long item"),))]
    )
    events = list(client.responses.create(model="m", input="hi", stream=True))
    kinds = [event.type for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert [event.sequence_number for event in events] == list(range(len(events)))
    text = [e.delta for e in events if isinstance(e, ResponseTextDeltaEvent)]
    assert text == ["one ", "two"]
    arguments = [e.delta for e in events if isinstance(e, ResponseFunctionCallArgumentsDeltaEvent)]
    assert len(arguments) > 1 and "".join(arguments) == '{"item": "a long item"}'
    added = [e.item for e in events if isinstance(e, ResponseOutputItemAddedEvent)]
    assert [item.type for item in added] == ["message", "function_call"]
    completed = events[-1]
    assert isinstance(completed, ResponseCompletedEvent)
    assert completed.response.usage is not None and completed.response.usage.total_tokens > 0
    assert completed.response.output_text == "one two"


def test_chat_completions_route_is_unchanged(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """One script serves both endpoints in turn; each answers in its own format."""
    server.extend(["chat answer", "responses answer"])
    completion = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}]
    )
    response = client.responses.create(model="m", input="hi")
    assert completion.choices[0].message.content == "chat answer"
    assert response.output_text == "responses answer"
    assert server.paths == ["/v1/chat/completions", "/v1/responses"]
