"""OpenAIResponses asks for output_schema natively, as Agno does: ``text.format``.

A Responses model that got the schema only as prompt text answers free text from many
servers; the API's own ``json_schema`` format is what Agno sends and what OpenAI
enforces. Checked through the real ``openai`` client against the fake server.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from core.agent import Agent
from core.models.openai import OpenAIResponses
from core.testing import FakeOpenAIServer


class Topics(BaseModel):
    topics: list[str]


def _agent(server: FakeOpenAIServer) -> Agent:
    model = OpenAIResponses(base_url=server.base_url, api_key="sk-test")
    return Agent(model=model, output_schema=Topics)


def _check_request(request: dict[str, object]) -> None:
    fmt = request["text"]["format"]  # type: ignore[index]
    assert fmt["type"] == "json_schema"
    assert fmt["name"] == "Topics"
    assert fmt["strict"] is True
    assert fmt["schema"]["properties"]["topics"]["type"] == "array"
    # the schema is not repeated as prompt text
    assert "json_schema" not in json.dumps(request["input"])


def test_run_sends_the_schema_as_text_format_and_parses_the_reply() -> None:
    with FakeOpenAIServer(['{"topics": ["agents", "ai"]}']) as server:
        output = _agent(server).run("What is this about?")
    assert output.content == Topics(topics=["agents", "ai"])
    assert server.paths == ["/v1/responses"]
    _check_request(server.requests[0])


def test_streamed_run_sends_the_schema_as_text_format() -> None:
    with FakeOpenAIServer(['{"topics": ["state"]}']) as server:
        events = list(_agent(server).run("What is this about?", stream=True))
    assert events[-1].run_output.content == Topics(topics=["state"])
    assert server.requests[0]["stream"] is True
    _check_request(server.requests[0])
