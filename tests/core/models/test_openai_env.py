"""OPENAI_BASE_URL and OPENAI_API_KEY are honoured, read when the first call is made."""

from __future__ import annotations

import pytest

from core.models.base import Message
from core.models.openai import OpenAIChat
from core.models.openai.chat import PLACEHOLDER_API_KEY
from core.testing import FakeOpenAIServer

QUESTION = [Message("user", "hi")]


async def test_env_base_url_and_key(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model built before the environment is set uses both variables."""
    chat = OpenAIChat(id="gpt-4o-mini")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.extend(["from env"])
    response = await chat.ainvoke(QUESTION, [])
    await chat.aclose()
    assert response.content == "from env"
    assert server.headers[0]["authorization"] == "Bearer sk-from-env"


async def test_base_url_alone_uses_placeholder_key(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only OPENAI_BASE_URL set (e.g. Ollama): calls go out with a placeholder key."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.extend(["local model"])
    chat = OpenAIChat(id="llama3.1")
    response = await chat.ainvoke(QUESTION, [])
    await chat.aclose()
    assert response.content == "local model"
    assert server.headers[0]["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"


async def test_arguments_beat_environment(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Explicit base_url and api_key win over the environment."""
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.extend(["explicit"])
    chat = OpenAIChat(base_url=server.base_url, api_key="sk-explicit")
    response = await chat.ainvoke(QUESTION, [])
    await chat.aclose()
    assert response.content == "explicit"
    assert server.headers[0]["authorization"] == "Bearer sk-explicit"


async def test_changed_environment_is_picked_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pointing OPENAI_BASE_URL elsewhere between calls switches servers."""
    chat = OpenAIChat(api_key="k")
    with FakeOpenAIServer(["first"]) as one, FakeOpenAIServer(["second"]) as two:
        monkeypatch.setenv("OPENAI_BASE_URL", one.base_url)
        first = await chat.ainvoke(QUESTION, [])
        monkeypatch.setenv("OPENAI_BASE_URL", two.base_url)
        second = await chat.ainvoke(QUESTION, [])
        await chat.aclose()
    assert (first.content, second.content) == ("first", "second")
