"""/state usage: anyone sees their own usage against the budget; other sessions are for admins."""

from __future__ import annotations

from bots.app.service import chat_service
from bots.chat.service import ChatService
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.governance.budgets.model import Budget
from core.testing import ScriptedModel, tool_call
from tests.bots.conftest import ServiceFactory, command, message
from tools.taskboard import tools as taskboard

ANA, BO, ADMIN = "U0ANA0001", "U0BO00001", "U0ADMIN01"


def _service(budget: Budget | None) -> ChatService:
    model = ScriptedModel([tool_call("add_task", title="Milk"), "Added."])
    agent = Agent(
        id="taskboard", model=model, db=InMemoryDb(), tools=[taskboard.add_task], budget=budget
    )
    settings = Settings(
        statebot_default_agent="taskboard",
        statebot_admin_ids={f"slack:T1:{ADMIN}"},
        openai_api_key=None,
        openai_base_url=None,
    )
    return chat_service({"taskboard": agent}, settings=settings)


async def test_any_user_sees_their_own_usage_against_the_budget() -> None:
    """Ana's tool calls count for her, this conversation and this channel; Bo sees his zero."""
    service = _service(Budget(tool_calls_per_user=5, tokens_per_channel=1000))
    await service.handle_message(message("add milk", thread=None, user=ANA))
    ana = await service.handle_command(command("state", "usage", user=ANA))
    assert ana.ephemeral and "Usage today" in ana.text
    assert "• you: 0 tokens (no limit), 1 of 5 tool calls" in ana.text
    assert "• this channel: 0 of 1,000 tokens" in ana.text
    bo = await service.handle_command(command("state", "usage taskboard", user=BO))
    assert "• you: 0 tokens (no limit), 0 of 5 tool calls" in bo.text
    assert "• this conversation: 0 tokens (no limit), 1 tool call" in bo.text


async def test_another_session_is_for_admins_only() -> None:
    """A raw session id is someone else's conversation: refused for users, shown to admins."""
    service = _service(Budget(tool_calls_per_session=9))
    await service.handle_message(message("add milk", thread=None, user=ANA))
    refused = await service.handle_command(command("state", "usage slack:T1:C1", user=BO))
    assert "Only admins" in refused.text
    shown = await service.handle_command(command("state", "usage slack:T1:C1", user=ADMIN))
    assert "session slack:T1:C1: 0 tokens (no limit), 1 of 9 tool calls" in shown.text


async def test_usage_without_a_budget_says_nothing_is_counted(
    make_service: ServiceFactory,
) -> None:
    """An agent without a budget says so instead of showing zeros."""
    reply = await make_service(None).handle_command(command("state", "usage", user=ANA))
    assert reply.ephemeral and "No usage budget" in reply.text
