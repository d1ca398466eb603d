"""Parsing Teams activities (captured shapes, bots.adapters.teams.parse): pure functions."""

from __future__ import annotations

from bots.adapters.teams.parse import conversation_id, parse_action, parse_message
from bots.inbound import InboundMessage, SlashCommand
from tests.bots.adapters.teams.payloads import (
    ANA,
    APP_ID,
    BO,
    CHANNEL,
    GROUP,
    PERSONAL,
    ROOT,
    TENANT,
    card_action,
    channel_mention,
    channel_reply,
    group_chat,
    personal,
)


def test_a_channel_post_mentioning_the_bot_starts_its_reply_chain() -> None:
    msg = parse_message(channel_mention())
    assert isinstance(msg, InboundMessage)
    assert (msg.workspace, msg.channel, msg.thread, msg.reply_thread) == (
        TENANT,
        CHANNEL,
        ROOT,
        ROOT,
    )
    assert msg.user == ANA["aadObjectId"] and msg.addressed and msg.bot_mentioned and not msg.is_dm
    assert (
        msg.keys.session_id
        == f"teams:{TENANT}:19%3A033451497ea84fcc83d17ed7fb08a1b6%40thread.skype:{ROOT}"
    )
    # the bot's mention is gone; Bo's stays readable as the traits' mention; &amp; unescaped
    assert msg.text == f'add milk & eggs, and tell <at id="{BO["id"]}">Bo Chen</at>'
    assert msg.mentions == (BO["id"],)


def test_a_reply_in_the_chain_belongs_to_the_root_s_thread() -> None:
    msg = parse_message(channel_reply())
    assert isinstance(msg, InboundMessage)
    assert msg.thread == ROOT and msg.event_id == "1481567708462"


def test_a_channel_message_without_the_bot_s_mention_is_not_addressed() -> None:
    msg = parse_message(channel_mention(text="just chatting", entities=[]))
    assert isinstance(msg, InboundMessage) and not msg.addressed


def test_a_channel_or_team_mention_is_plain_text_never_markup() -> None:
    team = {
        "type": "mention",
        "mentioned": {"id": CHANNEL, "name": "General"},
        "text": "<at>General</at>",
    }
    bot = channel_mention()["entities"][0]
    msg = parse_message(
        channel_mention(text="<at>Statebot</at> ping <at>General</at>", entities=[bot, team])
    )
    assert isinstance(msg, InboundMessage) and msg.text == "ping @General" and msg.mentions == ()


def test_a_personal_chat_is_a_dm_without_a_mention() -> None:
    msg = parse_message(personal())
    assert isinstance(msg, InboundMessage)
    assert msg.is_dm and msg.addressed and not msg.bot_mentioned
    assert (msg.channel, msg.thread, msg.reply_thread) == (PERSONAL, None, None)
    assert msg.text == "what is on the board?"


def test_a_group_chat_is_a_channel_without_threads() -> None:
    msg = parse_message(group_chat())
    assert isinstance(msg, InboundMessage)
    assert (msg.channel, msg.thread, msg.is_dm, msg.addressed, msg.text) == (
        GROUP,
        None,
        False,
        True,
        "hello",
    )


def test_a_slash_after_the_mention_is_a_command() -> None:
    cmd = parse_message(
        channel_mention(
            text="<at>Statebot</at> /state dump", entities=channel_mention()["entities"][:1]
        )
    )
    assert isinstance(cmd, SlashCommand)
    assert (cmd.command, cmd.text, cmd.workspace, cmd.thread) == ("state", "dump", TENANT, ROOT)


def test_the_bot_s_own_posts_and_card_submits_are_not_messages() -> None:
    assert parse_message(personal(**{"from": {"id": f"28:{APP_ID}", "name": "Statebot"}})) is None
    assert parse_message(personal(value={"statebot": "card", "value": "[]"})) is None
    assert parse_message({**personal(), "type": "conversationUpdate"}) is None


def test_a_card_action_invoke_carries_its_data_and_card() -> None:
    action = parse_action(card_action({"statebot": "card", "value": "[1]"}, card_id="1:abc"))
    assert action is not None and action.invoke and action.kind == "card"
    assert (action.workspace, action.channel, action.thread, action.card_id) == (
        TENANT,
        CHANNEL,
        ROOT,
        "1:abc",
    )
    assert action.user == ANA["aadObjectId"]


def test_an_action_submit_message_is_a_card_action_too() -> None:
    action = parse_action(
        personal(text=None, value={"statebot": "approval", "approve": True}, replyToId="1:q")
    )
    assert action is not None and not action.invoke and action.kind == "approval" and action.is_dm


def test_other_invokes_and_foreign_cards_are_not_ours() -> None:
    assert parse_action(card_action({"verb": "someone else's"})) is None
    assert (
        parse_action({**card_action({"statebot": "card"}), "name": "composeExtension/query"})
        is None
    )


def test_a_reply_chain_reply_goes_to_the_root_conversation() -> None:
    assert conversation_id(CHANNEL, ROOT) == f"{CHANNEL};messageid={ROOT}"
    assert conversation_id(PERSONAL, None) == PERSONAL
