"""Seed 003: the shopping-list workflow, its list checked after each of the four inputs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.db.in_memory import InMemoryDb
from core.db.sqlite import SqliteDb
from core.models.base import ToolCall
from core.testing import FakeOpenAIServer, ScriptedModel, tool_call
from core.utils.sync import run_sync
from tests.core.workflow.seed_003_shopping import build

INPUTS = [
    "Please add milk, bread, and eggs to my shopping list.",
    "Add apples and bananas to the list, then show me the complete list.",
    "Remove bread from the list and show me what's left.",
    "Clear the entire shopping list and confirm it's empty.",
]
EXPECTED_LISTS = [
    ["milk", "bread", "eggs"],
    ["milk", "bread", "eggs", "apples", "bananas"],
    ["milk", "eggs", "apples", "bananas"],
    [],
]


def assistant_turns() -> list[Any]:
    """The Shopping Assistant's side of the four runs."""
    return [
        [
            tool_call("add_item", item="milk"),
            tool_call("add_item", item="bread"),
            tool_call("add_item", item="eggs"),
        ],
        "Added milk, bread and eggs.",
        [tool_call("add_item", item="apples"), tool_call("add_item", item="bananas")],
        "Added apples and bananas.",
        tool_call("remove_item", item="Bread"),
        "Removed bread.",
        "The list manager will clear the list for you.",
    ]


def manager_turns() -> list[Any]:
    """The List Manager's side of the four runs."""
    return [
        tool_call("list_items"),
        "Here is your list.",
        tool_call("list_items"),
        "Here is your complete list.",
        tool_call("list_items"),
        "Here is what's left.",
        tool_call("remove_all_items"),
        tool_call("list_items"),
        "Your list is now empty.",
    ]


def run_four_inputs(workflow: Any, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    """Play the seed's main block, checking the stored list after each input."""
    outputs = []
    for text, expected in zip(INPUTS, EXPECTED_LISTS, strict=True):
        outputs.append(workflow.print_response(input=text))
        assert workflow.get_session_state() == {"shopping_list": expected}
    printed = capsys.readouterr().out
    assert "Your list is now empty." in printed
    return outputs


@pytest.mark.parametrize("store", ["in_memory", "sqlite"])
def test_seed_003_with_scripted_models(
    store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both agents' tools change one workflow state; each input's result is persisted."""
    monkeypatch.chdir(tmp_path)
    db = InMemoryDb() if store == "in_memory" else SqliteDb(db_file="tmp/workflow.db")
    workflow, shopping_assistant, list_manager = build(db)
    shopping_assistant.model = ScriptedModel(assistant_turns())
    list_manager.model = ScriptedModel(manager_turns())

    outputs = run_four_inputs(workflow, capsys)

    # the second step saw the first step's changes within the same run
    listed = [t.result for t in outputs[1].tools if t.tool_name == "list_items"]
    assert listed == ["Shopping list:\n- milk\n- bread\n- eggs\n- apples\n- bananas"]
    assert list(outputs[1].step_outputs) == ["manage_items", "view_list"]
    assert outputs[1].content == "Here is your complete list."
    # one session, of kind "workflow", owned by this workflow
    stored = run_sync(db.alist_sessions())
    assert [(r.kind, r.owner_id, r.state) for r in stored] == [
        ("workflow", workflow.id, {"shopping_list": []})
    ]


@pytest.fixture
def fake_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-compatible server the seed's OpenAIChat reaches via OPENAI_BASE_URL."""
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.chdir(tmp_path)
        yield server


def test_seed_003_against_fake_openai_server(
    fake_server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seed's own OpenAIChat models, served locally, keep the list right after each input."""
    assistant, manager = assistant_turns(), manager_turns()
    # the server plays both agents in the order the workflow calls them
    per_run = [(2, 2), (2, 2), (2, 2), (1, 3)]
    script: list[str | ToolCall | list[ToolCall]] = []
    for own, other in per_run:
        script += assistant[:own]
        script += manager[:other]
        del assistant[:own], manager[:other]
    fake_server.extend(script)
    workflow, _, _ = build(SqliteDb(db_file="tmp/workflow.db"))

    run_four_inputs(workflow, capsys)

    assert len(fake_server.requests) == len(script)
    first_manager_request = fake_server.requests[2]
    assert "list management specialist" in first_manager_request["messages"][0]["content"]
