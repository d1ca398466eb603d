"""Failures: retries, timeouts and server errors become ModelError, without the key."""

from __future__ import annotations

import socket
import traceback
from collections.abc import AsyncIterator

import pytest

from core.models.base import Message, ModelError, ModelResponse, ModelTimeoutError
from core.models.openai import OpenAIChat
from core.testing import Delayed, FakeOpenAIServer, HTTPFailure, MalformedBody

QUESTION = [Message("user", "hi")]
SECRET = "sk-live-do-not-print-4242"


async def _drain(stream: AsyncIterator[str | ModelResponse]) -> None:
    async for _ in stream:
        pass


async def test_server_error_is_retried(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """A 500 is retried by the client and the retry's answer is returned."""
    server.extend([HTTPFailure(500), "recovered"])
    response = await model.ainvoke(QUESTION, [])
    assert response.content == "recovered"
    assert len(server.requests) == 2


async def test_rate_limit_with_retry_after_is_retried(
    server: FakeOpenAIServer, model: OpenAIChat
) -> None:
    """A 429 carrying retry-after is retried."""
    server.extend([HTTPFailure(429, retry_after=0.01), "after the limit"])
    response = await model.ainvoke(QUESTION, [])
    assert response.content == "after the limit"
    assert len(server.requests) == 2


async def test_persistent_500_gives_model_error(
    server: FakeOpenAIServer, model: OpenAIChat
) -> None:
    """After the client's retries a 500 becomes a ModelError naming status and host."""
    server.extend([HTTPFailure(500, "overloaded")] * 3)
    with pytest.raises(ModelError) as caught:
        await model.ainvoke(QUESTION, [])
    assert len(server.requests) == 3  # the first try plus max_retries=2
    message = str(caught.value)
    assert "HTTP 500" in message and "overloaded" in message
    assert server.base_url.split("/")[2] in message  # host:port
    assert not isinstance(caught.value, ModelTimeoutError)


async def test_client_errors_are_not_retried(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """A 400 fails at once with the server's message."""
    server.extend([HTTPFailure(400, "unknown model 'x'"), "never served"])
    with pytest.raises(ModelError, match="HTTP 400: unknown model 'x'"):
        await model.ainvoke(QUESTION, [])
    assert len(server.requests) == 1


async def test_streaming_500_gives_model_error(server: FakeOpenAIServer, model: OpenAIChat) -> None:
    """Streaming calls fail the same way after retries."""
    server.extend([HTTPFailure(502)] * 3)
    with pytest.raises(ModelError, match="HTTP 502"):
        await _drain(model.astream(QUESTION, []))


async def test_timeout_gives_model_timeout_error(server: FakeOpenAIServer) -> None:
    """A server slower than the timeout raises ModelTimeoutError."""
    server.extend([Delayed(5.0, "too late")])
    chat = OpenAIChat(base_url=server.base_url, api_key="k", timeout=0.05, max_retries=0)
    with pytest.raises(ModelTimeoutError, match=r"did not answer within 0\.05s"):
        await chat.ainvoke(QUESTION, [])
    await chat.aclose()


async def test_streaming_timeout_gives_model_timeout_error(server: FakeOpenAIServer) -> None:
    """A stalled streaming call raises ModelTimeoutError too."""
    server.extend([Delayed(5.0, "too late")])
    chat = OpenAIChat(base_url=server.base_url, api_key="k", timeout=0.05, max_retries=0)
    with pytest.raises(ModelTimeoutError):
        await _drain(chat.astream(QUESTION, []))
    await chat.aclose()


async def test_timeouts_are_retried(server: FakeOpenAIServer) -> None:
    """A timed-out attempt is retried, and the retry's answer returned."""
    server.extend([Delayed(5.0, "too late"), "in time"])
    chat = OpenAIChat(base_url=server.base_url, api_key="k", timeout=0.2, max_retries=1)
    response = await chat.ainvoke(QUESTION, [])
    await chat.aclose()
    assert response.content == "in time"


async def test_malformed_body_gives_model_error(
    server: FakeOpenAIServer, model: OpenAIChat
) -> None:
    """A body that is not JSON is a ModelError, not a raw decoding error."""
    server.extend([MalformedBody()])
    with pytest.raises(ModelError, match="malformed response"):
        await model.ainvoke(QUESTION, [])


async def test_malformed_stream_gives_model_error(
    server: FakeOpenAIServer, model: OpenAIChat
) -> None:
    """A broken server-sent event is a ModelError too."""
    server.extend([MalformedBody()])
    with pytest.raises(ModelError, match="malformed response"):
        await _drain(model.astream(QUESTION, []))


async def test_unreachable_server_names_the_host() -> None:
    """Nothing listening: a ModelError that says where the client tried to connect."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chat = OpenAIChat(base_url=f"http://127.0.0.1:{port}/v1", api_key="k", max_retries=0)
    with pytest.raises(ModelError, match=f"could not connect to .*127.0.0.1:{port}"):
        await chat.ainvoke(QUESTION, [])
    await chat.aclose()


async def test_api_key_never_in_error_text() -> None:
    """A server that echoes a rejected key back does not get it into the error."""
    with FakeOpenAIServer(api_key="the-right-key") as fake:
        chat = OpenAIChat(base_url=fake.base_url, api_key=SECRET, max_retries=0)
        with pytest.raises(ModelError) as caught:
            await chat.ainvoke(QUESTION, [])
        await chat.aclose()
    assert "HTTP 401" in str(caught.value)
    assert SECRET not in str(caught.value)
    assert SECRET not in repr(caught.value)
    assert SECRET not in "".join(traceback.format_exception(caught.value))
    assert fake.headers[0]["authorization"] == f"Bearer {SECRET}"  # the key was really sent


async def test_missing_credentials_say_how_to_configure() -> None:
    """Without a key or base URL the error names both settings."""
    chat = OpenAIChat()
    with pytest.raises(ModelError, match=r"OPENAI_API_KEY.*OPENAI_BASE_URL"):
        await chat.ainvoke(QUESTION, [])
