"""Whole flows through python-telegram-bot against a fake Bot API: mention -> reply in
the right topic with the state saved, chunks, flood control, private replies, reminders."""

from __future__ import annotations

from typing import Any

from bots.adapters.telegram.bot import make_bot
from bots.adapters.telegram.scheduled import telegram_delivery
from bots.adapters.telegram.send import PRIVATE_BLOCKED, PRIVATE_SENT
from bots.chat.button_store import MemoryButtons
from bots.chat.chunking import chunk_text
from bots.chat.replies import Reply
from bots.settings import Settings
from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.conftest import WS, Start
from tests.bots.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi


@tool
def remember(session_state: dict[str, Any], note: str) -> str:
    """Keep a note in this conversation."""
    session_state.setdefault("notes", []).append(note)
    return f"noted {note}"


def notes_agent(turns: list[Any]) -> Any:
    def make(db: SqliteDb) -> dict[str, Agent]:
        agent = Agent(model=ScriptedModel(turns), db=db, tools=[remember], id="notes")
        return {"notes": agent}

    return make


async def test_a_topic_mention_is_answered_in_its_topic_with_the_state_saved(
    start: Start, fake: FakeBotApi
) -> None:
    """@bot in forum topic 77: the answer goes to topic 77, replying to the message, and
    the topic's own session holds the note."""
    bot = await start(notes_agent([tool_call("remember", note="milk"), "Noted: *milk*."]))
    fake.push(p.topic_mention("remember milk", thread=77))
    [sent] = await fake.wait_for("sendMessage")
    assert (sent["chat_id"], sent["message_thread_id"]) == (p.GROUP, 77)
    assert sent["reply_parameters"]["message_id"] == 42
    assert sent["parse_mode"] == "MarkdownV2" and sent["text"] == "Noted: _milk_\\."
    session = await bot.db.aload(f"telegram:{WS}:{p.GROUP}:77")
    assert session is not None and session.state["notes"] == ["milk"]
    assert fake.sent("sendChatAction")[0]["message_thread_id"] == 77  # typing in the topic
    commands = {c["command"] for c in fake.sent("setMyCommands")[0]["commands"]}
    assert commands == {"notes", "state", "memory", "connect"}


async def test_a_dm_is_answered_at_the_top_of_the_private_chat(
    start: Start, fake: FakeBotApi
) -> None:
    """No mention needed; no quoting in a private chat."""
    await start(notes_agent(["Hello."]))
    fake.push(p.private("hi"))
    [sent] = await fake.wait_for("sendMessage")
    assert sent["chat_id"] == p.ALICE["id"] and "reply_parameters" not in sent


async def test_long_replies_are_cut_at_4096_characters(start: Start, fake: FakeBotApi) -> None:
    """A 12,000-character answer arrives whole, in parts Telegram accepts."""
    answer = " ".join(f"word{i}" for i in range(1500))
    await start(notes_agent([answer]))
    fake.push(p.mention("talk"))
    parts = await fake.wait_for("sendMessage", count=len(chunk_text(answer, 4096)))
    assert len(parts) >= 3
    texts = [part["text"] for part in parts]
    assert all(len(text) <= 4096 for text in texts)
    assert " ".join(texts).split() == answer.split()
    assert "reply_parameters" in parts[0] and "reply_parameters" not in parts[1]


async def test_flood_control_is_waited_out(start: Start, fake: FakeBotApi) -> None:
    """A 429 with retry_after 1: the same message is sent again after that second."""
    await start(notes_agent(["Here."]))
    fake.fail("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
    fake.push(p.mention("hi"))
    await fake.wait_for("sendMessage", count=2)
    first, second = [c for c in fake.calls if c.method == "sendMessage"]
    assert first.params == second.params
    assert second.at - first.at >= 1.0  # Telegram's retry_after, honoured


async def test_a_message_is_never_lost_to_markup(start: Start, fake: FakeBotApi) -> None:
    """When Telegram refuses the MarkdownV2, the part is sent again as plain text."""
    await start(notes_agent(["Fine *then*."]))
    fake.fail("sendMessage", 400, "Bad Request: can't parse entities: unexpected end")
    fake.push(p.mention("hi"))
    _, plain = await fake.wait_for("sendMessage", count=2)
    assert plain["text"] == "Fine *then*." and "parse_mode" not in plain


async def test_state_for_admins_goes_to_their_private_chat(start: Start, fake: FakeBotApi) -> None:
    """/state dump in a group by a `telegram:*:<id>` admin: the dump is sent privately,
    the group is told so; a blocked private chat is said, without the content."""
    admin = frozenset({f"telegram:*:{p.ALICE['id']}"})
    settings = Settings(redis_url=None, statebot_admin_ids=admin)
    await start(notes_agent([tool_call("remember", note="x"), "ok"]), settings=settings)
    fake.push(p.mention("remember x"))
    await fake.wait_for("sendMessage")
    fake.push(p.command("state", "dump", message_id=43))
    await fake.wait_for("sendMessage", count=3)
    private, note = fake.sent()[1:3]
    assert private["chat_id"] == p.ALICE["id"] and "notes" in private["text"]
    assert note["chat_id"] == p.GROUP and note["text"].startswith("I sent you the answer")
    assert PRIVATE_SENT.startswith("I sent you")
    fake.fail("sendMessage", 403, "Forbidden: bot can't initiate conversation with a user")
    fake.push(p.command("state", "dump", message_id=44))
    await fake.wait_for("sendMessage", count=5)
    blocked = fake.sent()[-1]
    assert blocked["chat_id"] == p.GROUP and "notes" not in blocked["text"]
    assert blocked["text"].startswith(PRIVATE_BLOCKED.split(":")[0])


async def test_a_reminder_is_posted_into_its_topic(fake: FakeBotApi) -> None:
    """A schedule's target (chat, topic) is where its reply goes."""
    bot = make_bot(TOKEN, fake.url)
    await bot.initialize()
    try:
        deliver = telegram_delivery(bot, MemoryButtons())
        target = {"platform": "telegram", "workspace": WS, "channel": str(p.GROUP), "thread": "77"}
        await deliver(target, Reply("Stand-up in 5 minutes."))
    finally:
        await bot.shutdown()
    [sent] = fake.sent()
    assert (sent["chat_id"], sent["message_thread_id"]) == (p.GROUP, 77)
    assert sent["text"] == "Stand\\-up in 5 minutes\\."
