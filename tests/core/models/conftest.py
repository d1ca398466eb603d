"""Fixtures for the model adapter tests: a fake OpenAI server and a model pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from core.models.openai import OpenAIChat
from core.testing import FakeOpenAIServer

TEST_KEY = "sk-test-0123456789"


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's own OpenAI settings must not leak into these tests."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A running fake server with an empty script; tests extend it."""
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
async def model(server: FakeOpenAIServer) -> AsyncIterator[OpenAIChat]:
    """OpenAIChat aimed at the fake server, with retries that finish quickly."""
    chat = OpenAIChat(base_url=server.base_url, api_key=TEST_KEY, timeout=5.0, max_retries=2)
    yield chat
    await chat.aclose()
