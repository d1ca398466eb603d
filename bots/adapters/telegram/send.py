"""Posting replies: chunked at 4,096 characters, rendered once, with their keyboards.

Every text goes through :mod:`bots.adapters.telegram.render` (MarkdownV2, nothing
formatted that was not meant). Should Telegram still refuse a rendered part ("can't
parse entities"), that part is sent again as plain text, so a reply is never lost to
formatting. A reply goes to the chat and forum topic (``message_thread_id``) the
message came from, as a reply to it when it is given (``reply_to``). Flood control
(429 ``retry_after``) is waited out by python-telegram-bot's ``AIORateLimiter``
(``bots.adapters.telegram.bot``).

A private reply (``Reply.ephemeral``: ``/state`` dumps, help, refusals) asked for in a
group is sent to the asker's private chat; when the bot may not write there (they
never started it), the group is told how to get it, without the content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import structlog
from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from bots.adapters.telegram.keyboards import approval_keyboard, card_keyboard
from bots.adapters.telegram.render import card_markdown, render
from bots.adapters.telegram.traits import MESSAGE_LIMIT
from bots.chat.button_store import ButtonStore
from bots.chat.chunking import chunk_text
from bots.chat.replies import Reply

log = structlog.get_logger(__name__)

__all__ = ["PRIVATE_BLOCKED", "PRIVATE_SENT", "Where", "post", "send_reply"]

PRIVATE_SENT = "I sent you the answer in a private chat."
PRIVATE_BLOCKED = (
    "That answer is private, and I cannot write to you yet: open a private chat with me, "
    "press Start, then ask again."
)


@dataclass(frozen=True, slots=True)
class Where:
    """A chat, its forum topic (None: the chat itself) and the message replied to."""

    chat: int
    thread: int | None = None
    reply_to: int | None = None
    is_dm: bool = False
    user: int | None = None  # the asker: where a private reply goes from a group


async def post(
    bot: Bot,
    where: Where,
    markdown_v2: str,
    plain: str,
    *,
    keyboard: InlineKeyboardMarkup | None = None,
    reply: bool = True,
) -> Message:
    """Send one rendered part; as plain text when Telegram cannot parse the markup."""
    common: dict[str, Any] = {
        "chat_id": where.chat,
        "message_thread_id": where.thread,
        "reply_markup": keyboard,
        "reply_parameters": (
            ReplyParameters(where.reply_to, allow_sending_without_reply=True)
            if reply and where.reply_to is not None
            else None
        ),
    }
    try:
        return await bot.send_message(text=markdown_v2, parse_mode=ParseMode.MARKDOWN_V2, **common)
    except BadRequest as exc:
        if "parse" not in str(exc).lower():
            raise
        log.warning("telegram_markdown_refused", error=str(exc), chat=where.chat)
        return await bot.send_message(text=plain[:MESSAGE_LIMIT], **common)


async def send_reply(bot: Bot, where: Where, reply: Reply, buttons: ButtonStore) -> list[Message]:
    """Post ``reply`` at ``where``: its approval's or card's keyboard on the last part."""
    if reply.ephemeral and not where.is_dm and where.user is not None:
        return await _privately(bot, where, reply, buttons)
    keyboard = None
    if reply.approval is not None:
        keyboard = await approval_keyboard(buttons, reply.approval)
    elif reply.card is not None:
        text = card_markdown(reply.card)
        if len(text) <= MESSAGE_LIMIT:  # the wire text is never shorter than what shows
            keyboard = await card_keyboard(buttons, reply.card)
            return [await post(bot, where, text, reply.text, keyboard=keyboard)]
        keyboard = await card_keyboard(buttons, reply.card)
    parts = chunk_text(reply.text, MESSAGE_LIMIT) or ["Done."]
    sent = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        keys = keyboard if last else None
        sent.append(await post(bot, where, render(part), part, keyboard=keys, reply=index == 0))
    return sent


async def _privately(bot: Bot, where: Where, reply: Reply, buttons: ButtonStore) -> list[Message]:
    """A private reply asked for in a group: to the asker's private chat, else a note."""
    assert where.user is not None
    private = Where(chat=where.user, is_dm=True)
    try:
        sent = await send_reply(bot, private, reply, buttons)
    except Forbidden:
        log.info("telegram_private_reply_blocked", chat=where.chat)
        return [await post(bot, where, render(PRIVATE_BLOCKED), PRIVATE_BLOCKED)]
    return [*sent, await post(bot, where, render(PRIVATE_SENT), PRIVATE_SENT)]
