"""Commands: internal tools are no commands; unknown words get the closest command."""

from __future__ import annotations

from typing import Any

import pytest

from bots.chat.commands import CommandError, parse_command
from core.db.in_memory import InMemoryDb
from core.tools.function import Function
from tests.bots.conftest import ServiceFactory, command


def update_task_status(session_state: dict[str, Any], task_id: int, status: str) -> str:
    """Move a task."""
    return ""


def ping(session_state: dict[str, Any]) -> str:
    """Internal."""
    return ""


TOOLS = {
    "update_task_status": Function(update_task_status),
    "ping": Function(ping, internal=True),
}


def test_an_alias_may_preset_arguments() -> None:
    """`done 1` with the alias done = `update_task_status status=done` binds both."""
    aliases = {"done": "update_task_status status=done"}
    parsed = parse_command("done 1", TOOLS, aliases)
    assert (parsed.tool, parsed.arguments) == (
        "update_task_status",
        {"task_id": 1, "status": "done"},
    )


def test_the_parser_refuses_an_internal_tool_unless_asked() -> None:
    """An internal tool is no command; a scheduled run (internal=True) may still name it."""
    with pytest.raises(CommandError, match="unknown command 'ping'"):
        parse_command("ping", TOOLS)
    assert parse_command("ping", TOOLS, internal=True).tool == "ping"


async def test_internal_tool_is_neither_listed_nor_accepted(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """/taskboard help does not list task_reminder, and /taskboard task_reminder is unknown."""
    service = make_service()
    await service.handle_command(command("taskboard", 'add "Write report"'))
    before = await db.aload("slack:T1:C1")
    help_text = (await service.handle_command(command("taskboard", "help"))).text
    assert "task_reminder" not in help_text and "remind" in help_text
    reply = await service.handle_command(command("taskboard", "task_reminder 1"))
    assert reply.text.startswith("Unknown command 'task_reminder' for /taskboard")
    assert "task_reminder" not in reply.text.split("Commands:")[1]
    after = await db.aload("slack:T1:C1")
    assert before is not None and after is not None and after.version == before.version


async def test_done_and_start_are_commands(make_service: ServiceFactory, db: InMemoryDb) -> None:
    """`/taskboard done 1` marks task #1 done (and `start 1` starts it)."""
    service = make_service()
    await service.handle_command(command("taskboard", 'add "Write report"'))
    await service.handle_command(command("taskboard", "start 1"))
    record = await db.aload("slack:T1:C1")
    assert record is not None and record.state["tasks"][0]["status"] == "in_progress"
    reply = await service.handle_command(command("taskboard", "done 1"))
    assert "done" in reply.text
    record = await db.aload("slack:T1:C1")
    assert record is not None and record.state["tasks"][0]["status"] == "done"


async def test_unknown_command_suggests_the_closest(make_service: ServiceFactory) -> None:
    """A misspelt command word is answered with the command it is closest to."""
    service = make_service()
    reply = await service.handle_command(command("taskboard", "lst"))
    assert "Did you mean `/taskboard list`?" in reply.text
    reply = await service.handle_command(command("taskboard", "finish 1"))
    assert "Did you mean" not in reply.text and "Unknown command 'finish'" in reply.text
