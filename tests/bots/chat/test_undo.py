"""`/<agent> undo` and `@bot <agent> undo`: your own last change, conflicts explained."""

from __future__ import annotations

from typing import Any

from bots.app.service import chat_service
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.tools import tool
from tests.bots.conftest import ServiceFactory, command, message

ANA, BO = "U0ANA0001", "U0BO00001"
CHANNEL_SESSION = "slack:T1:C1"


async def _state(db: InMemoryDb) -> dict[str, Any]:
    record = await db.aload(CHANNEL_SESSION)
    assert record is not None
    return record.state


async def test_undo_reverts_only_the_callers_last_change(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Bo's `/taskboard undo` takes back Bo's status change and leaves Ana's task alone."""
    service = make_service(None)
    await service.handle_command(command("taskboard", "add Milk", user=ANA))
    await service.handle_command(command("taskboard", "status 1 done", user=BO))
    reply = await service.handle_command(command("taskboard", "undo", user=BO))
    assert not reply.ephemeral
    assert reply.text.startswith(f"Undone <@{BO}>'s change v2:") and "saved as v3" in reply.text
    state = await _state(db)
    assert [(t["title"], t["status"]) for t in state["tasks"]] == [("Milk", "open")]


async def test_undo_by_mention_in_a_shared_conversation_explains_a_conflict(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """`@bot taskboard undo` from Ana, after Bo built on her change, names Bo; nothing changes."""
    service = make_service(None)
    await service.handle_command(command("taskboard", "add Milk", user=ANA))
    await service.handle_command(command("taskboard", "add Bread", user=BO))
    before = await _state(db)
    reply = await service.handle_message(message("taskboard undo", thread=None, user=ANA))
    assert reply is not None and reply.ephemeral
    assert "Can't undo your change v1" in reply.text and f"by <@{BO}>" in reply.text
    assert "Nothing was changed" in reply.text
    assert await _state(db) == before


async def test_nothing_to_undo_is_said_plainly(make_service: ServiceFactory) -> None:
    """A user with no change here (or an empty conversation) is told so; nothing runs."""
    service = make_service(None)
    empty = await service.handle_command(command("taskboard", "undo", user=ANA))
    assert empty.ephemeral and "Nothing to undo" in empty.text
    await service.handle_command(command("taskboard", "add Milk", user=ANA))
    other = await service.handle_command(command("taskboard", "undo", user=BO))
    assert other.ephemeral and "Nothing to undo" in other.text


async def test_help_lists_undo(make_service: ServiceFactory) -> None:
    """Each agent's help and the overview mention undo and the /state actions."""
    service = make_service(None)
    reply = await service.handle_command(command("taskboard", "help"))
    assert "/taskboard undo" in reply.text
    overview = service.help_text()
    assert "undo" in overview and "/state usage" in overview and "restore vN" in overview


@tool
def undo(session_state: dict[str, Any]) -> str:
    """This agent's own undo: pops the last note."""
    notes = session_state.setdefault("notes", ["a", "b"])
    return f"popped {notes.pop()}"


async def test_an_agents_own_undo_tool_wins() -> None:
    """An agent with a tool named `undo` runs it; the built-in undo is not offered there."""
    db = InMemoryDb()
    agent = Agent(id="notes", db=db, tools=[undo], session_state={"notes": ["a", "b"]})
    settings = Settings(statebot_default_agent="notes", openai_api_key=None, openai_base_url=None)
    service = chat_service({"notes": agent}, settings=settings)
    reply = await service.handle_command(command("notes", "undo"))
    assert reply.text == "popped b"
    assert "own tool" in service.help_text("notes")
