"""Slash-command text: a last required string parameter takes the remaining words."""

from __future__ import annotations

from typing import Any

import pytest

from bots.chat.commands import CommandError, parse_command
from core.tools.function import Function


def remind(session_state: dict[str, Any], task_id: int, when: str) -> str:
    """Remind about a task."""
    return ""


def add_task(session_state: dict[str, Any], title: str, due: str | None = None) -> str:
    """Add a task."""
    return ""


TOOLS = {f.name: f for f in (Function(remind), Function(add_task))}


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("remind 3 in 2 hours", {"task_id": 3, "when": "in 2 hours"}),
        ("remind #3 tomorrow 9am", {"task_id": 3, "when": "tomorrow 9am"}),
        ("remind 3 friday", {"task_id": 3, "when": "friday"}),
        ("remind when=friday 3", {"task_id": 3, "when": "friday"}),
    ],
)
def test_remaining_words_are_the_last_required_text(text: str, arguments: dict[str, Any]) -> None:
    """/taskboard remind 3 in 2 hours needs no quotes."""
    assert parse_command(text, TOOLS).arguments == arguments


def test_an_optional_last_parameter_still_refuses_extra_words() -> None:
    """add_task Buy milk tomorrow: three words for two parameters, the last optional."""
    with pytest.raises(CommandError, match="too many values: 'tomorrow'"):
        parse_command("add_task Buy milk tomorrow", TOOLS)
