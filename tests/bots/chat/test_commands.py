"""Slash-command parsing: binding, coercion, aliases and clear errors."""

from __future__ import annotations

from typing import Any

import pytest

from bots.chat.commands import CommandError, parse_command, usage
from core.tools.function import Function


def add_task(session_state: dict[str, Any], title: str, category: str = "general") -> str:
    """Add a task."""
    return title


def update_task_status(session_state: dict[str, Any], task_id: int, status: str) -> str:
    """Move a task."""
    return status


def list_tasks(
    session_state: dict[str, Any], category: str | None = None, status: str | None = None
) -> str:
    """List tasks."""
    return ""


def tag(
    labels: list[str], urgent: bool = False, weight: float = 1.0, meta: dict[str, Any] | None = None
) -> str:
    """Tag something."""
    return ""


def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    return item


TOOLS = {f.__name__: Function(f) for f in (add_task, update_task_status, list_tasks, tag, add_item)}
ALIASES = {"add": "add_task", "status": "update_task_status", "list": "list_tasks"}


def test_positional_and_named_arguments() -> None:
    """Quoted positional text binds in order; key=value binds by name."""
    parsed = parse_command('add_task "Review Q2 roadmap" category=work', TOOLS)
    assert parsed.tool == "add_task"
    assert parsed.arguments == {"title": "Review Q2 roadmap", "category": "work"}


def test_alias_and_integer_coercion() -> None:
    """An alias runs its tool; integers accept the shown `#3` form."""
    parsed = parse_command("status #3 done", TOOLS, ALIASES)
    assert parsed.tool == "update_task_status"
    assert parsed.arguments == {"task_id": 3, "status": "done"}


def test_command_word_is_case_insensitive() -> None:
    """`ADD_TASK` and `Add` work like their lower-case spelling."""
    assert parse_command("ADD_TASK x", TOOLS).tool == "add_task"
    assert parse_command("Add x", TOOLS, ALIASES).tool == "add_task"


def test_optional_nullable_parameter_by_name() -> None:
    """A `str | None` parameter takes a string by name; others stay unset."""
    assert parse_command("list status=done", TOOLS, ALIASES).arguments == {"status": "done"}


def test_boolean_number_array_object_coercion() -> None:
    """Values follow the schema type: booleans, numbers, JSON arrays and objects."""
    parsed = parse_command(
        """tag '["a", "b"]' urgent=yes weight=2.5 meta='{"k": 1}'""", TOOLS
    )
    assert parsed.arguments == {
        "labels": ["a", "b"],
        "urgent": True,
        "weight": 2.5,
        "meta": {"k": 1},
    }


def test_single_string_parameter_takes_all_words() -> None:
    """A tool with one string parameter needs no quotes: `add_item green apples`."""
    assert parse_command("add_item green apples", TOOLS).arguments == {"item": "green apples"}


def test_value_with_equals_sign_by_name() -> None:
    """A value containing `=` passes when the parameter is named."""
    parsed = parse_command('add_task title="a=b" category=work', TOOLS)
    assert parsed.arguments == {"title": "a=b", "category": "work"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("add_task", "missing title"),
        ('add_task "unclosed', "check the quotes"),
        ("add_task one two three", "too many values"),
        ("status x done", "task_id must be integer"),
        ("add_task x colour=red", "unknown parameter 'colour'"),
        ("add_task x title=y category=z", "too many values"),
        ("add_task x category=a category=b", "given twice"),
        ("tag a", "labels must be array"),
        ("tag '[1]' urgent=maybe", "urgent must be boolean"),
        ("tag '[1]' weight=heavy", "weight must be number"),
        ("frobnicate", "unknown command 'frobnicate'"),
        ("", "no command given"),
    ],
)
def test_bad_input_gives_a_clear_error(text: str, message: str) -> None:
    """Every kind of bad input raises CommandError saying what is wrong."""
    with pytest.raises(CommandError, match=message):
        parse_command(text, TOOLS, ALIASES)


def test_argument_errors_carry_usage() -> None:
    """An argument error ends with the tool's usage line."""
    with pytest.raises(CommandError) as caught:
        parse_command("status one", TOOLS, ALIASES)
    assert "usage: update_task_status <task_id> <status>" in str(caught.value)


def test_usage_marks_required_and_optional() -> None:
    """Usage shows required parameters in <> and optional ones in []."""
    assert usage(TOOLS["add_task"]) == "add_task <title> [category]"
    assert usage(TOOLS["list_tasks"]) == "list_tasks [category] [status]"


def test_alias_to_a_missing_tool_is_unknown() -> None:
    """An alias pointing at a tool the agent lacks is not a command."""
    with pytest.raises(CommandError, match="unknown command"):
        parse_command("ghost x", TOOLS, {"ghost": "no_such_tool"})
