"""discord.Message / Interaction -> InboundMessage / SlashCommand, on real payload shapes."""

from __future__ import annotations

from typing import Any

import discord
from discord_harness import Harness, MakeDiscord
from discord_payloads import (
    ALICE_ID,
    BOT_ID,
    CHANNEL,
    DM_CHANNEL,
    GUILD,
    THREAD,
    bot_mention,
    interaction_create,
    message_create,
)

from bots.adapters.discord.parse import parse_interaction, parse_message, strip_bot_mention


def _message(harness: Harness, data: Any) -> discord.Message:
    state = harness.client._connection
    channel, _ = state._get_guild_channel(data)
    return discord.Message(state=state, channel=channel, data=data)


async def test_thread_message_keys_parent_channel_and_thread(make_discord: MakeDiscord) -> None:
    """A mention in a thread: guild workspace, parent channel, thread id, mention stripped."""
    bot = await make_discord()
    data = message_create(f"<@{BOT_ID}>  add milk", channel=THREAD, mentions=[bot_mention()])
    msg = parse_message(_message(bot, data), int(BOT_ID))
    assert msg is not None
    assert (msg.platform, msg.workspace, msg.channel, msg.thread) == (
        "discord",
        GUILD,
        CHANNEL,
        THREAD,
    )
    assert (msg.user, msg.text, msg.event_id) == (ALICE_ID, "add milk", data["id"])
    assert msg.bot_mentioned and not msg.is_dm


async def test_dm_message_uses_dm_workspace(make_discord: MakeDiscord) -> None:
    """A DM: workspace ``dm``, the DM channel, no thread, no mention needed."""
    bot = await make_discord()
    msg = parse_message(_message(bot, message_create("list", channel=DM_CHANNEL, guild=None)), 1)
    assert msg is not None
    assert (msg.workspace, msg.channel, msg.thread, msg.is_dm) == ("dm", DM_CHANNEL, None, True)


async def test_everyone_without_mention_is_not_for_the_bot(make_discord: MakeDiscord) -> None:
    """@everyone does not put the bot in ``mentions``, so nothing is parsed."""
    bot = await make_discord()
    data = message_create("@everyone hi", mention_everyone=True)
    assert parse_message(_message(bot, data), int(BOT_ID)) is None


async def test_interaction_becomes_slash_command(make_discord: MakeDiscord) -> None:
    """An app-command interaction keeps command, text, guild, channel and user."""
    bot = await make_discord()
    interaction = discord.Interaction(
        data=interaction_create("taskboard", "x"), state=bot.client._connection
    )
    cmd = parse_interaction(interaction, "taskboard", " add milk ")
    assert (cmd.workspace, cmd.channel, cmd.thread, cmd.user) == (GUILD, CHANNEL, None, ALICE_ID)
    assert (cmd.command, cmd.text, cmd.event_id) == ("taskboard", "add milk", str(interaction.id))


def test_strip_bot_mention_handles_nickname_form() -> None:
    """Both ``<@id>`` and the legacy ``<@!id>`` are removed."""
    assert strip_bot_mention("<@!42> hi <@42>", 42) == "hi"


async def test_the_parser_decides_addressed_reply_thread_and_keys(
    make_discord: MakeDiscord,
) -> None:
    """A mention in a thread: addressed, answered in the thread, keyed by it."""
    bot = await make_discord()
    data = message_create(f"<@{BOT_ID}> hi", channel=THREAD, mentions=[bot_mention()])
    msg = parse_message(_message(bot, data), int(BOT_ID))
    assert msg is not None and msg.addressed and msg.reply_thread == THREAD
    assert msg.keys.session_id == f"discord:{GUILD}:{CHANNEL}:{THREAD}"
    assert msg.keys.user_id == f"discord:{GUILD}:{ALICE_ID}"


async def test_a_dm_is_addressed_without_a_reply_thread(make_discord: MakeDiscord) -> None:
    """A DM needs no mention: addressed, answered in the DM channel."""
    bot = await make_discord()
    msg = parse_message(_message(bot, message_create("list", channel=DM_CHANNEL, guild=None)), 1)
    assert msg is not None and msg.addressed and msg.reply_thread is None
