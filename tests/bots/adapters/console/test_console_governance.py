"""The console: /state history, restore with /confirm, /undo — as in chat, no admin id needed."""

from __future__ import annotations

from bots.adapters.console.session import ASK_CONFIRM, NOTHING_PENDING, ConsoleSession
from core.db.in_memory import InMemoryDb
from tests.bots.conftest import ServiceFactory


def _console(make_service: ServiceFactory) -> ConsoleSession:
    return ConsoleSession(make_service(None), agent_id="taskboard", session="t", user="ann")


async def _titles(db: InMemoryDb) -> list[str]:
    record = await db.aload("console:local:t")
    assert record is not None
    return [t["title"] for t in record.state["tasks"]]


async def test_history_and_restore_with_confirm(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """History names the console user; restore asks, /confirm applies it, once."""
    console = _console(make_service)
    await console.handle_line("/add One")
    await console.handle_line("/add Two")
    history = (await console.handle_line("/state history")).text or ""
    assert "• v2 @ann used add_task" in history
    asked = (await console.handle_line("/state restore v1")).text or ""
    assert asked.endswith(ASK_CONFIRM) and await _titles(db) == ["One", "Two"]
    done = (await console.handle_line("/confirm")).text or ""
    assert done.startswith("Restored") and await _titles(db) == ["One"]
    assert (await console.handle_line("/confirm")).text == NOTHING_PENDING


async def test_cancel_and_undo(make_service: ServiceFactory, db: InMemoryDb) -> None:
    """/cancel leaves the state alone; /undo takes back the user's own last change."""
    console = _console(make_service)
    await console.handle_line("/add One")
    await console.handle_line("/add Two")
    await console.handle_line("/state restore v1")
    assert (await console.handle_line("/cancel")).text == "Cancelled by @ann; nothing was done."
    undone = (await console.handle_line("/undo")).text or ""
    assert undone.startswith("Undone @ann's change v2") and await _titles(db) == ["One"]
