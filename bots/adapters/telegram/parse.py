"""Pure parsing: a python-telegram-bot ``Update`` -> a platform-neutral record.

Keys: the workspace is the bot's id (Telegram user and chat ids are global; the bot
id keeps two bots sharing one store apart); the channel is the chat id (a private
chat's id is the user's, positive; groups are negative); a forum topic is its own
thread (``message_thread_id``); a plain group's conversation is flat, one session per
chat, like a DM.

A group message is for the bot when it mentions it (``@botname`` or a text mention
of its id) or replies to one of its messages; with BotFather's privacy mode on,
Telegram delivers only those (and commands) anyway. A command (``/taskboard add
milk``, ``/taskboard@botname …`` in groups) becomes a :class:`SlashCommand`; one
addressed to another bot is ignored. A keyboard click becomes a :class:`Press`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from telegram import Chat, Message, MessageEntity, Update

from bots.inbound import InboundMessage, SlashCommand

__all__ = ["PLATFORM", "BotIdentity", "Press", "parse_press", "parse_update"]

PLATFORM = "telegram"


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """Who the bot is (from ``getMe``): what a mention or a command suffix must name."""

    id: int
    username: str

    @property
    def workspace(self) -> str:
        """The workspace component of every key this bot makes."""
        return str(self.id)


@dataclass(frozen=True, slots=True)
class Press:
    """A click on an inline keyboard button: its callback data, where and by whom."""

    query_id: str
    data: str
    workspace: str
    user: str
    chat: str | None  # None: the message is unknown (too old, or an inline message)
    thread: str | None
    message_id: int | None
    is_dm: bool


def _thread(message: Message) -> str | None:
    """The forum topic a message is in; None outside topics (General included)."""
    if message.is_topic_message and message.message_thread_id is not None:
        return str(message.message_thread_id)
    return None


def _replies_to_bot(message: Message, bot: BotIdentity) -> bool:
    """An explicit reply to one of the bot's messages.

    In a forum topic every message "replies" to the topic's creation message; that
    is where the message is, not whom it answers, so it does not count.
    """
    parent = message.reply_to_message
    if parent is None or parent.forum_topic_created is not None:
        return False
    return parent.from_user is not None and parent.from_user.id == bot.id


def _bot_mentions(entities: dict[MessageEntity, str], bot: BotIdentity) -> list[str]:
    """The text of each entity mentioning the bot (``@botname``, or its text mention)."""
    return [
        text
        for entity, text in entities.items()
        if (entity.type == MessageEntity.MENTION and text[1:].lower() == bot.username.lower())
        or (entity.user is not None and entity.user.id == bot.id)
    ]


def _command(
    message: Message, bot: BotIdentity, known: frozenset[str] | None
) -> tuple[str, str] | None:
    """(command, the text after it) when the message starts with a command for this bot.

    ``/cmd@otherbot`` is another bot's. In a group a bare ``/cmd`` may be meant for any
    bot there, so one this bot does not have (not in ``known``) is left alone; in a
    private chat every command is for the bot (an unknown one gets the command list).
    """
    text = message.text or ""
    commands = message.parse_entities([MessageEntity.BOT_COMMAND])
    for entity, token in commands.items():
        if entity.offset != 0:
            continue
        name, _, addressee = token[1:].partition("@")
        if addressee and addressee.lower() != bot.username.lower():
            return None
        group = message.chat.type != Chat.PRIVATE
        if group and not addressee and known is not None and name.lower() not in known:
            return None
        return name.lower(), text[len(token) :].strip()
    return None


def _strip(text: str, mentions: list[str]) -> str:
    for mention in mentions:
        text = text.replace(mention, " ", 1)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def parse_update(
    update: Update, bot: BotIdentity, known: frozenset[str] | None = None
) -> InboundMessage | SlashCommand | None:
    """A new message for the bot -> InboundMessage or SlashCommand; None for anything else
    (edits, channel posts, service messages, other bots, messages not addressed to it,
    commands of other bots). ``known``: the bot's command names (None: take any)."""
    message = update.message
    if message is None or message.from_user is None or message.from_user.is_bot:
        return None
    text = message.text if message.text is not None else message.caption
    if text is None:
        return None
    chat = str(message.chat.id)
    is_dm = message.chat.type == Chat.PRIVATE
    thread = _thread(message)
    user = str(message.from_user.id)
    event_id = f"{chat}:{message.message_id}"
    command = _command(message, bot, known) if message.text is not None else None
    if command is not None:
        return SlashCommand(
            platform=PLATFORM,
            workspace=bot.workspace,
            channel=chat,
            thread=thread,
            user=user,
            command=command[0],
            text=command[1],
            event_id=event_id,
            is_dm=is_dm,
            reply_thread=thread,
        )
    kinds: list[str | None] = [MessageEntity.MENTION, MessageEntity.TEXT_MENTION]
    entities = (
        message.parse_entities(kinds)
        if message.text is not None
        else message.parse_caption_entities(kinds)
    )
    mentions = _bot_mentions(entities, bot)
    addressed = is_dm or bool(mentions) or _replies_to_bot(message, bot)
    if not addressed:
        return None
    return InboundMessage(
        platform=PLATFORM,
        workspace=bot.workspace,
        channel=chat,
        thread=thread,
        user=user,
        text=_strip(text, mentions),
        event_id=event_id,
        is_dm=is_dm,
        mentions=_mentioned_ids(message),
        bot_mentioned=bool(mentions),
        addressed=True,
        reply_thread=thread,
    )


def _mentioned_ids(message: Message) -> tuple[str, ...]:
    """Ids of users mentioned by text mention (an @username carries no id)."""
    entities = message.entities or message.caption_entities or ()
    return tuple(str(e.user.id) for e in entities if e.user is not None)


def parse_press(update: Update, bot: BotIdentity) -> Press | None:
    """A callback query -> Press; None for anything else."""
    query = update.callback_query
    if query is None or query.data is None:
        return None
    message = query.message
    chat = message.chat if message is not None else None
    thread = None
    if isinstance(message, Message):
        thread = _thread(message)
    return Press(
        query_id=str(query.id),
        data=query.data,
        workspace=bot.workspace,
        user=str(query.from_user.id),
        chat=str(chat.id) if chat is not None else None,
        thread=thread,
        message_id=message.message_id if message is not None else None,
        is_dm=chat is not None and chat.type == Chat.PRIVATE,
    )
