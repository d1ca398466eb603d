"""A Discord app command that runs a confirmation-guarded tool posts Approve / Reject."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from discord_harness import Harness
from discord_payloads import guild_create, interaction_create
from fakes.discord_api import FakeDiscordApi

from bots.adapters.discord.client import StatebotDiscord
from bots.adapters.discord.components import PREFIX, MemoryApprovals
from bots.app.service import chat_service
from bots.ops.flags import MemoryFlags
from bots.settings import Settings
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel
from core.tools import tool


@tool(requires_confirmation=True)
def clear_board(session_state: dict[str, Any], keep: int = 0) -> str:
    """Delete every task but the first ``keep``."""
    session_state["tasks"] = session_state.get("tasks", [])[:keep]
    return f"cleared, kept {keep}"


@pytest.fixture
async def bot(fake_discord: FakeDiscordApi) -> AsyncIterator[Harness]:
    """A logged-in client whose one agent has a tool that needs a person's yes."""
    model = ScriptedModel([])
    agent = Agent(model=model, db=InMemoryDb(), tools=[clear_board], id="board")
    client = StatebotDiscord(
        chat_service(
            {"board": agent}, settings=Settings(statebot_default_agent="board", redis_url=None)
        ),
        flags=MemoryFlags(),
        approvals=MemoryApprovals(),
    )
    await client.login("test-bot-token")
    harness = Harness(client, model)
    harness.gateway("GUILD_CREATE", guild_create())
    yield harness
    await client.close()
    assert harness.handler_errors == []


async def test_paused_app_command_follows_up_with_buttons(
    bot: Harness, fake_discord: FakeDiscordApi
) -> None:
    """/board clear_board keep=1 pauses: the follow-up names the call and carries both buttons."""
    bot.gateway("INTERACTION_CREATE", interaction_create("board", "clear_board keep=1"))
    await bot.settle()
    [followup] = [c.json for c in fake_discord.sent("webhooks/") if c.json]
    assert followup["content"] == 'Approve clear_board({"keep": 1})?'
    buttons = [b for row in followup.get("components", []) for b in row["components"]]
    assert [b["label"] for b in buttons] == ["Approve", "Reject"]
    assert all(b["custom_id"].startswith(PREFIX) for b in buttons)
    assert followup["allowed_mentions"] == {"parse": []}
