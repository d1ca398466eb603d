"""Reminders on Discord: set in a thread, fired later into that thread through the client."""

from __future__ import annotations

import time

from discord_harness import MakeDiscord
from discord_payloads import BOT_ID, CHANNEL, GUILD, THREAD, bot_mention, message_create
from fakes.discord_api import FakeDiscordApi

from bots.app.build import build_scheduler
from core.agent import Agent
from core.schedule import schedule_store
from core.testing import tool_call

THREAD_SESSION = f"discord:{GUILD}:{CHANNEL}:{THREAD}"


async def test_reminder_set_in_a_thread_is_posted_into_that_thread(
    make_discord: MakeDiscord, fake_discord: FakeDiscordApi
) -> None:
    """The remind call stores the thread as target; the firing posts the reminder there."""
    bot = await make_discord(
        [tool_call("remind", task_id=1, when="in 2 hours"), "Set."],
        statebot_agent_scopes={"taskboard": "thread"},  # the board of that thread
    )
    agent = bot.client.service.agents["taskboard"]
    assert isinstance(agent, Agent)
    task = {"id": 1, "title": "Ship", "category": "work", "status": "open"}
    await agent.aupdate_session_state({"tasks": [task], "next_task_id": 2}, THREAD_SESSION)
    bot.gateway(
        "MESSAGE_CREATE",
        message_create(f"<@{BOT_ID}> remind me", channel=THREAD, mentions=[bot_mention()]),
    )
    await bot.settle()
    [scheduled] = await schedule_store(agent.db).alist(THREAD_SESSION)  # type: ignore[arg-type]
    assert scheduled.target["thread"] == THREAD
    scheduler = build_scheduler(
        bot.client.service,
        agent.db,  # type: ignore[arg-type]
        clock=lambda: time.time() + 3 * 3600,
    )
    assert await scheduler.run_once() == 1
    posted = fake_discord.sent(f"channels/{THREAD}/messages")[-1].json
    assert posted["content"] == "⏰ Reminder: task #1 Ship (open)."
    assert posted["allowed_mentions"] == {"parse": []}
