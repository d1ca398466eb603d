"""Every kind of input goes through the one turn pipeline (``bots.chat.turns``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bots.app.service import chat_service
from bots.chat import turns
from bots.chat.approvals import Approval, Decision
from bots.chat.cards import Click
from bots.chat.errors import STORE_STALE
from bots.chat.replies import Reply
from bots.chat.service import ChatService
from bots.chat.turns import Turn, take_turn
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.exceptions import StaleVersionError
from core.models.scripted import ScriptedModel, tool_call
from core.schedule import Schedule
from core.tools import tool
from tests.bots.conftest import ServiceFactory, command, message

SESSION = "slack:T1:C1:1700.1"


@pytest.fixture
def stages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pipeline stages that ran, in order: bind, time (with its kind), guard, count."""
    seen: list[str] = []
    real_bind, real_timed = turns.bind_event, turns.timed_run
    real_guarded, real_count = turns.guarded, turns.count_tool_errors

    @contextmanager
    def bind(**ids: Any) -> Iterator[None]:
        seen.append(f"bind:{ids['session_id']}")
        with real_bind(**ids):
            yield

    def timed(run: Any, *, agent: str, kind: str) -> Any:
        seen.append(f"time:{kind}")
        return real_timed(run, agent=agent, kind=kind)

    async def guard(run: Any, **kwargs: Any) -> Reply:
        seen.append("guard")
        return await real_guarded(run, **kwargs)

    def count(output: Any, *, agent: str) -> None:
        seen.append("count")
        real_count(output, agent=agent)

    monkeypatch.setattr(turns, "bind_event", bind)
    monkeypatch.setattr(turns, "timed_run", timed)
    monkeypatch.setattr(turns, "guarded", guard)
    monkeypatch.setattr(turns, "count_tool_errors", count)
    return seen


async def test_a_message_goes_through_the_pipeline(
    make_service: ServiceFactory, stages: list[str]
) -> None:
    """Free text: bound to its session, timed as a message, guarded, tool errors counted."""
    service = make_service(["Hello!"], statebot_agent_scopes={"taskboard": "thread"})
    reply = await service.handle_message(message("hi"))
    assert reply is not None and reply.text.startswith("Hello!")
    assert stages == [f"bind:{SESSION}", "time:message", "guard", "count"]


async def test_a_command_goes_through_the_pipeline(
    make_service: ServiceFactory, stages: list[str]
) -> None:
    """A slash command: the same stages, timed as a command, on the channel's session."""
    reply = await make_service(None).handle_command(command("taskboard", 'add_task "Milk"'))
    assert "Milk" in reply.text
    assert stages == ["bind:slack:T1:C1", "time:command", "guard", "count"]


async def test_a_click_goes_through_the_pipeline(
    make_service: ServiceFactory, stages: list[str]
) -> None:
    """A card button: the same stages, timed as a click, on the card's session."""
    click = Click(
        "slack", "T1", "U1", "taskboard", SESSION, "add_task", {"title": "Milk"}, "list_tasks", {}
    )
    await make_service(None).handle_click(click)
    assert stages == [f"bind:{SESSION}", "time:click", "guard", "count"]


async def test_undo_goes_through_the_pipeline(
    make_service: ServiceFactory, stages: list[str]
) -> None:
    """Undo answers by itself (no run output to count), still bound, timed and guarded."""
    service = make_service(None)
    await service.handle_command(command("taskboard", 'add_task "Milk"'))
    stages.clear()
    reply = await service.handle_command(command("taskboard", "undo"))
    assert reply.text.startswith("Undone")
    assert stages == ["bind:slack:T1:C1", "time:undo", "guard"]


async def test_a_scheduled_run_goes_through_the_pipeline_unguarded(
    make_service: ServiceFactory, stages: list[str]
) -> None:
    """A scheduled run is bound and counted, neither timed nor guarded: failures propagate."""
    now = time.time()
    schedule = Schedule(
        "s1", SESSION, "/add_task Milk", now, now, owner_id="taskboard", user_id="slack:T1:U1"
    )
    target = {"platform": "slack", "workspace": "T1", "channel": "C1", "thread": "1700.1"}
    await make_service(None).handle_scheduled(schedule, target=target)
    assert stages == [f"bind:{SESSION}", "count"]


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any]) -> str:
    """Delete every task."""
    session_state["tasks"] = []
    return "cleared"


def _board(db: InMemoryDb, answers: list[Any]) -> ChatService:
    agent = Agent(model=ScriptedModel(answers), db=db, tools=[clear_board], id="board")
    settings = Settings(statebot_default_agent="board", openai_api_key=None, openai_base_url=None)
    return chat_service({"board": agent}, settings=settings)


async def test_a_decision_goes_through_the_pipeline(stages: list[str]) -> None:
    """Approve resumes the run through the same stages, timed as a decision."""
    db = InMemoryDb()
    asked = await _board(db, [tool_call("clear_board")]).handle_message(
        message("clear", user="U0ANA0001")
    )
    assert asked is not None and asked.approval is not None
    stages.clear()
    approval = Approval.decode(asked.approval.encode())
    assert approval is not None
    done = await _board(db, ["Cleared."]).handle_decision(
        Decision("slack", "T1", "U0ANA0001", True, approval)
    )
    assert done.text == "Approved by <@U0ANA0001>.\nCleared."
    assert stages == [f"bind:{SESSION}", "time:decision", "guard", "count"]


def _turn(kind: turns.Kind) -> Turn:
    async def run() -> Reply:
        raise StaleVersionError(SESSION, 1, 2)

    return Turn(kind, "board", "slack", SESSION, "slack:T1:U1", "Ev1", run, announce="test_turn")


async def test_a_failed_turn_gets_the_truthful_reply() -> None:
    """A refused save becomes "not applied, resend", whatever the kind."""
    assert (await take_turn(_turn("click"))).text == STORE_STALE


async def test_a_failed_scheduled_turn_propagates() -> None:
    """The scheduler, not a chat reply, handles a scheduled run's failure."""
    with pytest.raises(StaleVersionError):
        await take_turn(_turn("scheduled"))
