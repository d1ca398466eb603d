"""Streamed replies on Telegram: one message sent as the reply, then edited, ending in
the answer rendered like any reply; with streaming off, one message."""

from __future__ import annotations

from typing import Any

from bots.adapters.telegram.render import render
from bots.settings import Settings
from core.agent import Agent
from core.db.sqlite import SqliteDb
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.conftest import Start
from tests.bots.adapters.telegram.fake_bot_api import FakeBotApi
from tests.scenarios.fakes.streaming_model import WordStreamingModel

ANSWER = "Your board has **three** open tasks: review the roadmap, book the dentist, water plants."


def streaming_agent(db: SqliteDb) -> dict[str, Any]:
    return {"notes": Agent(model=WordStreamingModel([ANSWER]), db=db, id="notes")}


async def test_a_streamed_answer_is_one_message_edited_to_the_reply(
    start: Start, fake: FakeBotApi
) -> None:
    """STATEBOT_STREAM_REPLIES: sendMessage once, then edits of that message; the last edit
    is the whole answer, rendered. (A private chat: a group's 20-a-minute budget would
    pace a stream edited 100 times a second.)"""
    settings = Settings(redis_url=None, statebot_stream_replies=True, statebot_stream_seconds=0.01)
    bot = await start(streaming_agent, settings=settings)
    fake.push(p.private("status?"))
    final = render(ANSWER)
    edits = await fake.wait_for("editMessageText", where=lambda c: c["text"] == final)
    [sent] = fake.sent()
    assert sent["chat_id"] == p.ALICE["id"] and len(sent["text"]) < len(final)
    assert {e["message_id"] for e in fake.sent("editMessageText")} == {fake.posted[0]["message_id"]}
    assert edits[-1]["parse_mode"] == "MarkdownV2"
    assert not bot.task.done()


async def test_streaming_off_sends_the_answer_once(start: Start, fake: FakeBotApi) -> None:
    """The default: one message, no edits."""
    await start(streaming_agent)
    fake.push(p.mention("status?"))
    [sent] = await fake.wait_for("sendMessage")
    assert sent["text"] == render(ANSWER) and fake.sent("editMessageText") == []
