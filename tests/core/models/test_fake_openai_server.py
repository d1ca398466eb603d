"""FakeOpenAIServer on its own, seen through the plain openai clients (sync and async)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from core.testing import Delayed, FakeOpenAIServer, HTTPFailure, tool_call

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    """A sync openai client without retries, so every scripted failure shows."""
    with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=5) as sync:
        yield sync


def test_base_url_is_local_v1() -> None:
    """The base URL points at 127.0.0.1 on a free port, ending in /v1."""
    fake = FakeOpenAIServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = fake.base_url
    with fake:
        assert fake.base_url.startswith("http://127.0.0.1:")
        assert fake.base_url.endswith("/v1")
        assert not fake.base_url.endswith(":0/v1")


def test_serves_a_sync_client(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """A sync client gets the scripted text, and the request is recorded."""
    server.extend(["plain text"])
    completion = client.chat.completions.create(model="m", messages=USER)
    assert completion.choices[0].message.content == "plain text"
    assert completion.choices[0].finish_reason == "stop"
    assert server.requests == [{"model": "m", "messages": USER}]
    assert server.remaining == 0


def test_tool_calls_finish_with_tool_calls(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Scripted parallel tool calls are sent as tool_calls with that finish reason."""
    server.extend([[tool_call("a", x=1), tool_call("b", y=2)]])
    completion = client.chat.completions.create(model="m", messages=USER)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    names = [c.function.name for c in choice.message.tool_calls or [] if hasattr(c, "function")]
    assert names == ["a", "b"]


def test_stream_splits_text_and_arguments(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """SSE: text over several chunks, each call's arguments over several, then finish and usage."""
    server.extend(["one two three", "", tool_call("add", item="milk and honey")])
    chunks: list[Any] = []
    for _ in range(3):
        stream = client.chat.completions.create(
            model="m",
            messages=USER,
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks.append(list(stream))
    text_chunks, _, call_chunks = chunks
    pieces = [c.choices[0].delta.content for c in text_chunks if c.choices]
    assert [p for p in pieces if p] == ["one ", "two ", "three"]
    assert text_chunks[-2].choices[0].finish_reason == "stop"
    assert text_chunks[-1].choices == [] and text_chunks[-1].usage is not None
    deltas = [d for c in call_chunks if c.choices for d in c.choices[0].delta.tool_calls or []]
    arguments = [d.function.arguments for d in deltas if d.function and d.function.arguments]
    assert len(arguments) >= 3
    assert "".join(arguments) == '{"item": "milk and honey"}'
    assert deltas[0].id and deltas[0].function and deltas[0].function.name == "add"
    assert call_chunks[-2].choices[0].finish_reason == "tool_calls"


def test_callable_turn_sees_the_request(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """A callable turn decides the reply from the request JSON."""
    server.extend([lambda request: f"you said {request['messages'][-1]['content']}"])
    completion = client.chat.completions.create(model="m", messages=USER)
    assert completion.choices[0].message.content == "you said hi"


def test_http_failure_sends_status_and_retry_after(
    server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    """A scripted 429 arrives with its retry-after header and error message."""
    server.extend([HTTPFailure(429, retry_after=2)])
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(model="m", messages=USER)
    assert caught.value.response.headers["retry-after"] == "2"
    assert "rate limit" in caught.value.message


def test_exhausted_script_is_a_clear_non_retried_error(server: FakeOpenAIServer) -> None:
    """Running out of turns answers 500 with a message, and tells clients not to retry."""
    with (
        openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=2) as retrying,
        pytest.raises(openai.InternalServerError, match="no scripted reply left"),
    ):
        retrying.chat.completions.create(model="m", messages=USER)
    assert len(server.requests) == 1


def test_unservable_turn_is_a_clear_error(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """A turn the server cannot play is answered 500 naming it, not a dropped connection."""
    server.extend([42])  # type: ignore[list-item]
    with pytest.raises(openai.InternalServerError, match="cannot serve the turn 42"):
        client.chat.completions.create(model="m", messages=USER)


def test_wrong_api_key_is_rejected() -> None:
    """With api_key set, a request carrying another key gets HTTP 401."""
    with (
        FakeOpenAIServer(["never"], api_key="right") as fake,
        openai.OpenAI(base_url=fake.base_url, api_key="wrong", max_retries=0) as sync,
    ):
        with pytest.raises(openai.AuthenticationError):
            sync.chat.completions.create(model="m", messages=USER)
        assert fake.remaining == 1  # a rejected request does not use up a turn


def test_unknown_route_is_404(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    """Routes other than chat completions and responses are 404."""
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="m", input="x")


async def test_serves_an_async_client(server: FakeOpenAIServer) -> None:
    """An async client is served from the same background thread."""
    server.extend(["async hello"])
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="k") as client:
        completion = await client.chat.completions.create(model="m", messages=USER)
    assert completion.choices[0].message.content == "async hello"


def test_stop_releases_a_delayed_reply() -> None:
    """Stopping the server wakes a reply that is still waiting, so stop() returns."""
    fake = FakeOpenAIServer([Delayed(60.0, "late")]).start()
    errors: list[BaseException] = []

    def call() -> None:
        with openai.OpenAI(base_url=fake.base_url, api_key="k", max_retries=0) as sync:
            try:
                sync.chat.completions.create(model="m", messages=USER)
            except openai.APIError as exc:
                errors.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    while not fake.requests:  # wait until the request is being held
        threading.Event().wait(0.01)
    fake.stop()
    caller.join()
    assert isinstance(errors[0], openai.APIConnectionError)
