"""Reminders set in a forum topic fire into that topic; the model and the web console
read names, not ids."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bots.adapters import registry
from bots.adapters.base import OffersWebNames
from bots.app.build import build_scheduler
from bots.settings import Settings
from core.agent import Agent
from core.schedule import schedule_store
from core.testing import ScriptedModel, tool_call
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.conftest import WS, Start
from tests.bots.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi
from tools.catalog import COMMAND_ALIASES, create_agents

TOPIC_SESSION = f"telegram:{WS}:{p.GROUP}:77"


async def test_a_reminder_set_in_a_topic_is_posted_into_that_topic(
    start: Start, fake: FakeBotApi
) -> None:
    """The remind call stores the topic as target; the scheduler's firing posts there."""
    settings = Settings(redis_url=None, statebot_agent_scopes={"taskboard": "thread"})
    model = ScriptedModel([tool_call("remind", task_id=1, when="in 2 hours"), "Set."])
    bot = await start(
        lambda db: create_agents(model, db), settings=settings, aliases=COMMAND_ALIASES
    )
    service = bot.app.service
    agent = service.agents["taskboard"]
    assert isinstance(agent, Agent)
    task = {"id": 1, "title": "Ship", "category": "work", "status": "open"}
    await agent.aupdate_session_state({"tasks": [task], "next_task_id": 2}, TOPIC_SESSION)
    fake.push(p.topic_mention("remind me", thread=77))
    await fake.wait_for("sendMessage")
    [scheduled] = await schedule_store(agent.db).alist(TOPIC_SESSION)  # type: ignore[arg-type]
    assert scheduled.target["thread"] == "77"
    scheduler = build_scheduler(service, bot.db, clock=lambda: time.time() + 3 * 3600)
    assert await scheduler.run_once() == 1
    posted = fake.sent()[-1]
    assert (posted["chat_id"], posted["message_thread_id"]) == (p.GROUP, 77)
    assert posted["text"] == "⏰ Reminder: task \\#1 Ship \\(open\\)\\."


async def test_the_model_reads_the_speakers_name(start: Start, fake: FakeBotApi) -> None:
    """Alice's message reaches the model as "Alice: …" (getChat), not as her id."""
    seen: list[str] = []

    def answer(messages: list[Any], _tools: list[dict[str, Any]]) -> str:
        seen.append(str(messages[-1].content))
        return "Hi Alice."

    def agents(db: Any) -> dict[str, Agent]:
        return {"notes": Agent(model=ScriptedModel([answer]), db=db, id="notes")}

    await start(agents)
    fake.push(p.mention("hello there"))
    await fake.wait_for("sendMessage")
    assert seen == ["Alice: hello there"]


async def test_the_web_console_reads_names_with_the_token(
    fake: FakeBotApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With TELEGRAM_BOT_TOKEN the console's name lookup asks getChat; without, none."""
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    adapter = registry.get("telegram")
    assert isinstance(adapter, OffersWebNames)
    assert adapter.web_names(Settings()) is None
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("TELEGRAM_API_URL", fake.url)
    offered = adapter.web_names(Settings())
    assert offered is not None and offered.platform == "telegram" and offered.close is not None
    try:
        assert await offered.source.user_name(WS, str(p.ALICE["id"])) == "Alice"
        assert await offered.source.channel_name(WS, str(p.GROUP)) == "Team"
        assert await offered.source.channel_name(WS, str(p.ALICE["id"])) is None
    finally:
        await offered.close()
