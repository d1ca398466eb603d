"""Pure parsing: a discord.py ``Message`` or ``Interaction`` -> a platform-neutral record.

Keys follow the architecture: workspace is the guild id or ``dm``; a thread is its
own session under its parent channel; a plain channel message belongs to the
channel (Discord conversations in a channel are flat, so there is no per-message
thread); a DM belongs to its DM channel.
"""

from __future__ import annotations

import re

import discord

from bots.adapters.discord.files import attachments_of
from bots.inbound import InboundMessage, SlashCommand

PLATFORM = "discord"
DM_WORKSPACE = "dm"


def _place(channel: object, guild_id: int | None) -> tuple[str, str, str | None, bool]:
    """(workspace, channel, thread, is_dm) for a message's or interaction's channel."""
    channel_id = str(getattr(channel, "id", ""))
    if guild_id is None:
        return DM_WORKSPACE, channel_id, None, True
    if isinstance(channel, discord.Thread):
        return str(guild_id), str(channel.parent_id), channel_id, False
    return str(guild_id), channel_id, None, False


def _guild_id(channel: object, guild: discord.Guild | None) -> int | None:
    """The guild id, also when the guild is not cached (a partial channel knows it)."""
    if guild is not None:
        return guild.id
    found = getattr(channel, "guild_id", None)
    return found if isinstance(found, int) else None


def bot_role_ids(message: discord.Message, bot_id: int) -> tuple[int, ...]:
    """Ids of the mentioned roles that belong to the bot (its managed integration role).

    Discord creates one such role when the bot joins a guild; members often pick it
    from the autocomplete instead of the bot user, so it addresses the bot too.
    """
    return tuple(
        role.id
        for role in message.role_mentions
        if role.tags is not None and role.tags.bot_id == bot_id
    )


def strip_bot_mention(text: str, bot_id: int, role_ids: tuple[int, ...] = ()) -> str:
    """``text`` without ``<@bot_id>`` / ``<@!bot_id>`` / ``<@&bot role>`` tokens, trimmed."""
    text = re.sub(rf"<@!?{bot_id}>", " ", text)
    for role_id in role_ids:
        text = text.replace(f"<@&{role_id}>", " ")
    return re.sub(r" {2,}", " ", text).strip()


def is_for_bot(message: discord.Message, bot_id: int) -> bool:
    """A human's message that mentions the bot (by name or its role) or is a DM.

    ``@everyone`` / ``@here`` never count (they are not in ``message.mentions``),
    and neither do posts by any bot, the bot itself included.
    """
    if message.author.bot or message.author.id == bot_id or message.webhook_id is not None:
        return False
    if _guild_id(message.channel, message.guild) is None:
        return True
    return any(user.id == bot_id for user in message.mentions) or bool(
        bot_role_ids(message, bot_id)
    )


def parse_message(message: discord.Message, bot_id: int) -> InboundMessage | None:
    """A message addressed to the bot -> InboundMessage; None for anything else.

    Addressing is decided here (:func:`is_for_bot`), so the record is ``addressed``;
    a reply goes to the channel or thread the message came from (``reply_thread``:
    the thread, None elsewhere).
    """
    if not is_for_bot(message, bot_id):
        return None
    workspace, channel, thread, is_dm = _place(
        message.channel, _guild_id(message.channel, message.guild)
    )
    mentions = tuple(str(user.id) for user in message.mentions)
    roles = bot_role_ids(message, bot_id)
    return InboundMessage(
        platform=PLATFORM,
        workspace=workspace,
        channel=channel,
        thread=thread,
        user=str(message.author.id),
        text=strip_bot_mention(message.content, bot_id, roles),
        event_id=str(message.id),
        is_dm=is_dm,
        mentions=mentions,
        bot_mentioned=str(bot_id) in mentions or bool(roles),
        addressed=True,
        reply_thread=thread,
        attachments=attachments_of(message),
    )


def parse_interaction(interaction: discord.Interaction, command: str, text: str) -> SlashCommand:
    """An app-command interaction -> SlashCommand (the command name and its text)."""
    workspace, channel, thread, is_dm = _place(interaction.channel, interaction.guild_id)
    if not channel and interaction.channel_id is not None:
        channel = str(interaction.channel_id)
    return SlashCommand(
        platform=PLATFORM,
        workspace=workspace,
        channel=channel,
        thread=thread,
        user=str(interaction.user.id),
        command=command,
        text=text.strip(),
        event_id=str(interaction.id),
        is_dm=is_dm,
        reply_thread=thread,
    )
