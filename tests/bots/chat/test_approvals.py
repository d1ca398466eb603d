"""Approvals: a paused run becomes buttons; a click resumes it once, for its asker or an admin."""

from __future__ import annotations

from typing import Any

from bots.app.service import chat_service
from bots.chat.approvals import ALREADY, EXPIRED, NOT_YOURS, Approval, Decision
from bots.chat.service import ChatService
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.models.scripted import ScriptedModel, tool_call
from core.tools import tool
from tests.bots.conftest import command, message

#: a Slack user id as Slack makes them (one the traits mention as <@U…>)
ANA = "U0ANA0001"


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    session_state["tasks"] = session_state.get("tasks", [])[:keep]
    return f"cleared, kept {keep}"


def _service(db: InMemoryDb, turns: list[Any]) -> ChatService:
    agent = Agent(
        model=ScriptedModel(turns),
        db=db,
        tools=[clear_board],
        id="board",
        session_state={"tasks": ["a", "b"]},
    )
    settings = Settings(
        statebot_default_agent="board",
        statebot_admin_ids=frozenset({"slack:T1:UADMIN"}),
        openai_api_key=None,
        openai_base_url=None,
    )
    return chat_service({"board": agent}, settings=settings)


def _click(approval: Approval, user: str = "U1", approve: bool = True) -> Decision:
    return Decision("slack", "T1", user, approve, Approval.decode(approval.encode()) or approval)


async def test_paused_run_asks_and_a_second_service_resumes_once() -> None:
    """The reply names the tool and arguments; another service applies the click; twice: no."""
    db = InMemoryDb()
    first = _service(db, [tool_call("clear_board", keep=1)])
    reply = await first.handle_message(message("clear the board", user=ANA))
    assert reply is not None and reply.approval is not None
    assert reply.text == 'Approve clear_board({"keep": 1})?'
    second = _service(db, ["Board cleared."])
    done = await second.handle_decision(_click(reply.approval, user=ANA))
    assert done.text == f"Approved by <@{ANA}>.\nBoard cleared." and not done.ephemeral
    assert (await db.aload("slack:T1:C1:1700.1")).state["tasks"] == ["a"]  # type: ignore[union-attr]
    again = await first.handle_decision(_click(reply.approval, user=ANA))
    assert (again.text, again.ephemeral) == (ALREADY, True)


async def test_only_the_asker_or_an_admin_decides() -> None:
    """Someone else's click is refused and changes nothing; an admin's counts."""
    db = InMemoryDb()
    service = _service(db, [tool_call("clear_board"), "Kept all."])
    reply = await service.handle_message(message("clear"))
    assert reply is not None and reply.approval is not None
    refused = await service.handle_decision(_click(reply.approval, user="U2"))
    assert (refused.text, refused.ephemeral) == (NOT_YOURS, True)
    assert (await db.aload("slack:T1:C1:1700.1")).state["tasks"] == ["a", "b"]  # type: ignore[union-attr]
    rejected = await service.handle_decision(_click(reply.approval, user="UADMIN", approve=False))
    assert rejected.text.startswith("Rejected by <@UADMIN>.")
    assert (await db.aload("slack:T1:C1:1700.1")).state["tasks"] == ["a", "b"]  # type: ignore[union-attr]


async def test_unknown_run_is_expired() -> None:
    """A button whose run is not in the history says it expired."""
    service = _service(InMemoryDb(), [])
    stale = Approval("board", "slack:T1:C1:1700.1", "nope", "slack:T1:U1", ("c1",))
    reply = await service.handle_decision(_click(stale))
    assert (reply.text, reply.ephemeral) == (EXPIRED, True)


async def test_slash_command_of_a_confirmation_tool_asks_instead_of_refusing() -> None:
    """/board clear_board 1 posts the question; approval runs the tool without the model."""
    db = InMemoryDb()
    service = _service(db, [])
    reply = await service.handle_command(command("board", "clear_board 1", user=ANA))
    assert reply.approval is not None and reply.text == 'Approve clear_board({"keep": 1})?'
    done = await service.handle_decision(_click(reply.approval, user=ANA))
    assert done.text == f"Approved by <@{ANA}>.\ncleared, kept 1"
