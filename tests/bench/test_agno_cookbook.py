"""The cookbook harness: imports ported and nothing else, a policy that acts the same
on both wire shapes, and captures compared without fresh ids and times."""

from __future__ import annotations

import json

from bench.agno_cookbook import SELECTION, port
from bench.cookbook_capture import is_empty, normalise, sitecustomize
from bench.cookbook_model import reply
from core.models.base import ToolCall

ADD_ITEM = {
    "name": "add_item",
    "parameters": {
        "type": "object",
        "properties": {"item": {"type": "string"}},
        "required": ["item"],
    },
}
REMOVE = {
    "name": "remove_item",
    "parameters": {
        "type": "object",
        "properties": {"item": {"type": "string"}},
        "required": ["item"],
    },
}


def _chat(text: str, tools: list[dict[str, object]], last_role: str = "user") -> dict:
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}]
    if last_role == "tool":
        messages += [{"role": "assistant", "content": None}, {"role": "tool", "content": "ok"}]
    return {"messages": messages, "tools": [{"type": "function", "function": t} for t in tools]}


def _responses(text: str, tools: list[dict[str, object]]) -> dict:
    return {
        "input": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": text}],
        "tools": [{"type": "function", **t} for t in tools],
    }


def test_port_rewrites_import_lines_only() -> None:
    text = 'from agno.agent import Agent\nprint("from agno.agent import Agent")\n'
    assert (
        port(text, "core")
        == 'from core.agent import Agent\nprint("from agno.agent import Agent")\n'
    )
    assert port(text, "agno") == text
    assert len(SELECTION) == len(set(SELECTION)) == 60


def test_the_policy_calls_the_matching_tool_with_the_users_word_on_both_wires() -> None:
    for request in (
        _chat("Add milk to my list", [REMOVE, ADD_ITEM]),
        _responses("Add milk to my list", [ADD_ITEM, REMOVE]),
    ):
        turn = reply(request)
        assert isinstance(turn, ToolCall) and turn.name == "add_item"
        assert json.loads(turn.arguments) == {"item": "milk"}


def test_after_tool_results_it_answers_text() -> None:
    assert reply(_chat("Add milk", [ADD_ITEM], last_role="tool")) == "Done."
    assert reply(_chat("What is on it?", [])) == "Noted: What is on it"


def test_a_leader_delegates_to_the_best_named_member_in_either_prompt() -> None:
    delegate = {
        "name": "delegate_task_to_member",
        "parameters": {
            "type": "object",
            "properties": {"member_id": {"type": "string"}, "task": {"type": "string"}},
        },
    }
    agno = _chat("Plan the shopping", [delegate])
    agno["messages"][0]["content"] = (
        '<member id="cook" name="Cook">\n<member id="shopper" name="Shopping Agent">'
    )
    ours = _chat("Plan the shopping", [delegate])
    ours["messages"][0]["content"] = "- id: cook, name: Cook\n- id: shopper, name: Shopping Agent"
    for request in (agno, ours):
        turn = reply(request)
        assert json.loads(turn.arguments) == {"member_id": "shopper", "task": "Plan the shopping"}


def test_a_schema_is_answered_with_an_object_that_fits_it() -> None:
    schema = {
        "type": "object",
        "properties": {
            "topics": {"type": "array", "items": {"type": "string"}},
            "count": {"type": "integer"},
        },
        "required": ["topics", "count"],
    }
    request = {
        "input": "Topics of agents",
        "text": {"format": {"type": "json_schema", "name": "T", "schema": schema}},
    }
    assert json.loads(reply(request)) == {"topics": ["topics"], "count": 1}


def test_captures_compare_without_fresh_ids_times_or_order() -> None:
    agno = {
        "sessions": [
            ["agent", "0b0f3c2e-1d2a-4b5c-8d9e-0f1a2b3c4d5e", {"at": "2026-11-27T19:00:01"}],
            ["agent", "fixed", {"list": ["milk"]}],
        ]
    }
    core = {
        "sessions": [
            ["agent", "fixed", {"list": ["milk"]}],
            ["agent", "9a8b7c6d5e4f40318a2b3c4d5e6f7a8b", {"at": "2026-11-27T19:00:09"}],
        ]
    }
    assert normalise(agno) == normalise(core)
    assert normalise({"sessions": [["agent", "fixed", {"list": []}]]}) != normalise(core)
    # key order is part of the state, as Agno keeps it
    assert normalise({"sessions": [["a", "s", {"x": 1, "y": 2}]]}) != normalise(
        {"sessions": [["a", "s", {"y": 2, "x": 1}]]}
    )
    assert is_empty({"sessions": [["agent", "s", {}]]}) and not is_empty(core)


def test_the_start_up_hook_names_the_package() -> None:
    text = sitecustomize("core")
    assert "PKG = 'core'" in text and "COOKBOOK_STATE_OUT" in text
    compile(text, "sitecustomize.py", "exec")
