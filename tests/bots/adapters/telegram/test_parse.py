"""Parsing Telegram updates into the neutral records: pure functions on captured updates."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Update

from bots.adapters.telegram.parse import BotIdentity, parse_press, parse_update
from bots.inbound import InboundMessage, SlashCommand
from tests.bots.adapters.telegram import payloads as p
from tests.bots.adapters.telegram.fake_bot_api import BOT

ME = BotIdentity(id=BOT["id"], username=BOT["username"])
WS = str(BOT["id"])


def parse(payload: dict[str, Any]) -> InboundMessage | SlashCommand | None:
    return parse_update(Update.de_json(payload, None), ME)


def test_a_group_mention_is_for_the_bot_with_the_mention_stripped() -> None:
    """@bot text in a group: addressed, the chat's session, the mention gone from the text."""
    msg = parse(p.mention("add milk to the board"))
    assert isinstance(msg, InboundMessage)
    assert (msg.text, msg.addressed, msg.bot_mentioned, msg.is_dm) == (
        "add milk to the board",
        True,
        True,
        False,
    )
    assert msg.keys.session_id == f"telegram:{WS}:{p.GROUP}"
    assert msg.keys.user_id == f"telegram:{WS}:{p.ALICE['id']}"
    assert msg.reply_thread is None and msg.event_id == f"{p.GROUP}:42"


def test_a_forum_topic_is_its_own_session_and_its_root_is_not_a_reply() -> None:
    """message_thread_id keys the session; the topic's creation message is no reply to the bot."""
    msg = parse(p.topic_mention("what is open?", thread=77))
    assert isinstance(msg, InboundMessage)
    assert msg.keys.session_id == f"telegram:{WS}:{p.GROUP}:77"
    assert msg.reply_thread == "77" and msg.text == "what is open?"
    unaddressed = p.topic_mention("hello", thread=77)
    unaddressed["message"]["text"] = "hello everyone"
    unaddressed["message"].pop("entities")
    assert parse(unaddressed) is None  # in a topic, but not for the bot


def test_a_reply_to_the_bot_needs_no_mention() -> None:
    """Answering one of the bot's messages addresses it."""
    msg = parse(p.reply_to_bot("and eggs"))
    assert isinstance(msg, InboundMessage) and msg.addressed and not msg.bot_mentioned
    assert msg.text == "and eggs"


def test_a_private_chat_is_a_dm() -> None:
    """A DM needs no mention and is keyed by the private chat (the user's id)."""
    msg = parse(p.private("hi"))
    assert isinstance(msg, InboundMessage) and msg.is_dm and msg.addressed
    assert msg.keys.session_id == f"telegram:{WS}:{p.ALICE['id']}"


def test_group_chatter_and_other_bots_are_ignored() -> None:
    """Not mentioned, not a reply to the bot, or sent by a bot: not for us."""
    assert parse(p.message("lunch?")) is None
    assert parse(p.mention("hi", user={**p.BOB, "is_bot": True})) is None
    assert parse({"update_id": 1, "edited_message": p.mention("x")["message"]}) is None


def test_a_mention_of_someone_else_is_not_the_bot() -> None:
    """@alice is a mention, but not of the bot."""
    payload = p.message("@alice look", entities=[{"type": "mention", "offset": 0, "length": 6}])
    assert parse(payload) is None


def test_offsets_count_utf16_units() -> None:
    """An emoji before the mention (two UTF-16 units) does not shift it."""
    text = f"🎉 {p.BOT_NAME} party"
    entity = {"type": "mention", "offset": 3, "length": len(p.BOT_NAME)}
    msg = parse(p.message(text, entities=[entity]))
    assert isinstance(msg, InboundMessage) and msg.text == "🎉 party"


@pytest.mark.parametrize(
    ("payload", "command", "text"),
    [
        (p.command("taskboard", "add milk"), "taskboard", "add milk"),
        (p.command("TaskBoard", "list", suffix=BOT["username"]), "taskboard", "list"),
        (p.command("state", "dump"), "state", "dump"),
    ],
)
def test_commands_become_slash_commands(payload: dict[str, Any], command: str, text: str) -> None:
    """/cmd[@thisbot] text -> SlashCommand in the chat's (or topic's) session."""
    cmd = parse(payload)
    assert isinstance(cmd, SlashCommand)
    assert (cmd.command, cmd.text, cmd.channel) == (command, text, str(p.GROUP))


def test_a_command_for_another_bot_is_ignored() -> None:
    """/taskboard@otherbot is not ours."""
    assert parse(p.command("taskboard", "add x", suffix="other_bot")) is None


def test_a_callback_query_is_a_press_in_its_topic() -> None:
    """The press knows the chat, topic and message of the keyboard, and who pressed."""
    board = p.topic_mention("x", thread=77)["message"] | {"from": BOT, "message_id": 5001}
    press = parse_press(Update.de_json(p.callback("c:" + "a" * 32, board, user=p.BOB), None), ME)
    assert press is not None
    assert (press.chat, press.thread, press.message_id, press.user, press.is_dm) == (
        str(p.GROUP),
        "77",
        5001,
        str(p.BOB["id"]),
        False,
    )
    assert press.data == "c:" + "a" * 32 and press.workspace == WS
    assert parse_update(Update.de_json(p.callback("x", board), None), ME) is None


def test_a_bare_command_the_bot_lacks_is_left_to_other_bots() -> None:
    """In a group, /help (no suffix, not one of ours) may be another bot's; in a DM or
    with our suffix it is ours."""
    known = frozenset({"taskboard", "state"})
    assert parse_update(Update.de_json(p.command("help"), None), ME, known) is None
    ours = p.command("taskboard", "list")
    assert isinstance(parse_update(Update.de_json(ours, None), ME, known), SlashCommand)
    suffixed = p.command("help", suffix=BOT["username"])
    assert isinstance(parse_update(Update.de_json(suffixed, None), ME, known), SlashCommand)
    dm = p.command("start", chat={"id": p.ALICE["id"], "type": "private", "first_name": "A"})
    assert isinstance(parse_update(Update.de_json(dm, None), ME, known), SlashCommand)
