"""Images and files given to a run reach the model through the real openai client.

``images=`` / ``files=`` on ``arun`` (Agno's names and ``core.media`` types): the
fake OpenAI server records each request, so the tests read what the model was sent.
"""

from __future__ import annotations

import base64

import pytest

from core.agent import Agent
from core.media import File, Image
from core.models.openai import OpenAIChat, OpenAIResponses
from core.testing import FakeOpenAIServer
from tests.core.models.conftest import TEST_KEY
from tests.media_samples import pdf_bytes, png_bytes


def _user_message(request: dict) -> dict:
    return next(m for m in request["messages"] if m["role"] == "user")


async def test_chat_completions_request_carries_the_image(server: FakeOpenAIServer) -> None:
    """The user message becomes text + image_url parts; the image is a data: URL of its bytes."""
    server.extend(["A red square."])
    png = png_bytes()
    model = OpenAIChat(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)
    agent = Agent(model=model)
    out = await agent.arun(
        "What is this?", images=[Image(content=png, mime_type="image/png", name="red.png")]
    )
    assert out.content == "A red square."
    text, image = _user_message(server.requests[0])["content"]
    assert text == {"type": "text", "text": "What is this?"}
    assert image["type"] == "image_url"
    prefix = "data:image/png;base64,"
    assert image["image_url"]["url"].startswith(prefix)
    assert base64.b64decode(image["image_url"]["url"][len(prefix) :]) == png


async def test_responses_request_carries_the_image(server: FakeOpenAIServer) -> None:
    """Responses: input_text then input_image with the data URL (detail 'auto' unless set)."""
    server.extend(["Seen."])
    png = png_bytes()
    model = OpenAIResponses(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)
    await Agent(model=model).arun(
        "Look", images=[Image(content=png, mime_type="image/png", detail="low")]
    )
    assert server.paths == ["/v1/responses"]
    user = next(i for i in server.requests[0]["input"] if i.get("role") == "user")
    assert user["content"][0] == {"type": "input_text", "text": "Look"}
    image = user["content"][1]
    assert image["type"] == "input_image" and image["detail"] == "low"
    assert image["image_url"] == "data:image/png;base64," + base64.b64encode(png).decode()


async def test_image_by_url_is_sent_as_the_url(server: FakeOpenAIServer) -> None:
    """An Image given by URL is passed on as that URL, not fetched."""
    server.extend(["ok"])
    model = OpenAIChat(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)
    await Agent(model=model).arun("x", images=[Image(url="https://example.com/cat.jpg")])
    part = _user_message(server.requests[0])["content"][1]
    assert part["image_url"]["url"] == "https://example.com/cat.jpg"


async def test_files_reach_the_model_as_their_text(server: FakeOpenAIServer) -> None:
    """A CSV's own text and a PDF's extracted text follow the message in <file> blocks."""
    server.extend(["17 EUR"])
    model = OpenAIChat(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)
    files = [
        File(content=b"item,price\nmilk,2\n", mime_type="text/csv", filename="prices.csv"),
        File(content=pdf_bytes("Invoice 42: total 17 EUR"), mime_type="application/pdf"),
    ]
    await Agent(model=model).arun("Total?", files=files)
    (part,) = _user_message(server.requests[0])["content"]
    text = part["text"]
    assert text.startswith('Total?\n\n<file name="prices.csv" type="text/csv">\n')
    assert "milk,2" in text
    assert "Invoice 42: total 17 EUR" in text
    assert 'type="application/pdf"' in text


async def test_unreadable_file_refuses_the_run_before_it_starts(server: FakeOpenAIServer) -> None:
    """A file that is neither text nor PDF: ValueError naming it; no request, nothing stored."""
    model = OpenAIChat(base_url=server.base_url, api_key=TEST_KEY, max_retries=0)
    agent = Agent(model=model, session_id="s")
    zipped = File(content=b"PK\x03\x04", mime_type="application/zip", filename="a.zip")
    with pytest.raises(ValueError, match=r"'a\.zip' is application/zip"):
        await agent.arun("unpack", files=[zipped])
    assert server.requests == []
    assert agent.get_session("s") is None


async def test_image_needs_exactly_one_source() -> None:
    """Agno's rule: exactly one of url, filepath, content."""
    with pytest.raises(ValueError, match="exactly one of url, filepath or content"):
        Image(url="https://example.com/a.png", content=b"x")
    with pytest.raises(ValueError, match="given: none"):
        File()
