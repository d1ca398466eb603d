"""A nested value too deep, or text that is not valid Unicode, from a tool or from the
model's tool-call arguments fails that tool call with a clear error to the model; the
run's earlier tool batches stand and the run completes (on every store).

Runs go through the real OpenAI client against the fake server in ``core.testing``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.models.openai import OpenAIChat
from core.run.history import SessionData
from core.testing import FakeOpenAIServer, tool_call
from tests.db.conftest import backend, store

__all__ = ["backend", "store"]  # the fixtures, for pytest

DEEP = 700  # between the 500 and 900 levels that failed the final save


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item to the list."""
    session_state.setdefault("items", []).append(item)
    return f"added {item}"


def build(session_state: dict[str, Any], depth: int) -> str:
    """Store a structure nested ``depth`` levels deep."""
    session_state["tree"] = nested(depth)
    return "built"


def echo(text: str) -> str:
    """Say the text back."""
    return f"you said {text}"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def agent(server: FakeOpenAIServer, db: BaseDb) -> Agent:
    model = OpenAIChat(base_url=server.base_url, api_key="k", max_retries=0)
    return Agent(model=model, db=db, tools=[add, build, echo, note_arg], session_state={})


def note_arg(session_state: dict[str, Any], value: Any) -> str:
    """Keep a value the model sends."""
    session_state["kept"] = value
    return "kept"


def tool_results(server: FakeOpenAIServer) -> list[str]:
    """The tool results the model was sent, in order."""
    messages = server.requests[-1]["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


BAD_CALLS = {
    "deep value from a tool": (tool_call("build", depth=DEEP), "nested more than"),
    "deep value in arguments": (
        tool_call("note_arg", _raw_arguments=json.dumps({"value": nested(DEEP)})),
        "nested more than",
    ),
    "lone surrogate in arguments": (
        tool_call("echo", _raw_arguments='{"text": "a\\ud800b"}'),
        "not valid Unicode",
    ),
    "lone surrogate sent as a raw character": (
        tool_call("echo", _raw_arguments='{"text": "a\ud800b"}'.replace("\\ud800", "\ud800")),
        "not valid Unicode",
    ),
    "lone surrogate kept in the state": (
        tool_call("note_arg", _raw_arguments='{"value": {"x": "\\udfff"}}'),
        "not valid Unicode",
    ),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
async def test_a_bad_value_fails_its_tool_call_and_the_run_completes(
    store: BaseDb, server: FakeOpenAIServer, case: str
) -> None:
    """The earlier batch is saved, the bad call is an error result, the run completes."""
    bad, expected = BAD_CALLS[case]
    server.extend([tool_call("add", item="milk"), bad, tool_call("add", item="eggs"), "done"])

    out = await agent(server, store).arun("go", session_id="s", user_id="u")

    assert out.content == "done"
    results = tool_results(server)
    assert results[0] == "added milk" and results[2] == "added eggs"
    assert results[1].startswith("Error:") and expected in results[1], results[1]
    record = await store.aload("s")
    assert record is not None
    assert record.state == {"items": ["milk", "eggs"]}
    [run] = SessionData.decode(record.data).runs
    assert run.status == "completed" and run.output == "done"
    assert [c.error for c in run.tool_calls] == [False, True, False]
