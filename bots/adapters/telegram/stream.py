"""Streamed replies on Telegram: one message sent, then edited as the answer grows.

With ``STATEBOT_STREAM_REPLIES`` an answer is shown while the model writes it
(``bots.chat.streaming.PagedStream``): the first part is sent as the reply to the
message, then edited at most once per ``STATEBOT_STREAM_SECONDS`` (default 1 s, well
inside Telegram's limits; the rate limiter keeps to them anyway); past 4,096
characters it continues in a new message. Every edit is rendered like every reply
(``bots.adapters.telegram.render``); an edit Telegram cannot parse is made as plain
text. While a tool runs "typing…" is shown again (it lapses after ~5 s).
"""

from __future__ import annotations

from typing import Any

import structlog
from telegram import Bot, Message
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, TelegramError

from bots.adapters.telegram.render import render
from bots.adapters.telegram.send import Where, post
from bots.adapters.telegram.traits import MESSAGE_LIMIT
from bots.chat.replies import Reply
from bots.chat.streaming import PagedStream, StreamOptions

log = structlog.get_logger(__name__)

__all__ = ["TelegramEditor", "finish_stream", "telegram_stream"]


class TelegramEditor:
    """The :class:`bots.chat.streaming.MessageEditor` for one chat (and topic)."""

    __slots__ = ("_bot", "_posted", "_where", "limit")

    def __init__(self, bot: Bot, where: Where) -> None:
        self._bot = bot
        self._where = where
        self._posted = False
        self.limit = MESSAGE_LIMIT

    async def post(self, text: str) -> Message:
        """Send one part (the first as the reply to the message)."""
        message = await post(self._bot, self._where, render(text), text, reply=not self._posted)
        self._posted = True
        return message

    async def edit(self, handle: Any, text: str) -> None:
        """Replace a sent part's text; plain when the markup is refused."""
        message: Message = handle
        try:
            await self._bot.edit_message_text(
                render(text), message.chat_id, message.message_id, parse_mode=ParseMode.MARKDOWN_V2
            )
        except BadRequest as exc:
            if "not modified" in str(exc).lower():
                return
            if "parse" not in str(exc).lower():
                raise
            await self._bot.edit_message_text(text, message.chat_id, message.message_id)

    async def delete(self, handle: Any) -> None:
        """Remove a part the final text no longer needs."""
        message: Message = handle
        await self._bot.delete_message(message.chat_id, message.message_id)

    async def status(self, running: bool) -> None:
        """ "typing…" when a tool starts; decoration, so a refusal is only logged."""
        if not running:
            return
        try:
            await self._bot.send_chat_action(
                self._where.chat, ChatAction.TYPING, message_thread_id=self._where.thread
            )
        except TelegramError as exc:
            log.warning("telegram_typing_failed", error=str(exc), chat=self._where.chat)


def telegram_stream(bot: Bot, where: Where, options: StreamOptions) -> PagedStream | None:
    """The stream a reply at ``where`` is shown through; None when streaming is off."""
    return options.sink(TelegramEditor(bot, where))


async def finish_stream(sink: PagedStream | None, reply: Reply) -> bool:
    """End a streamed reply with the final text; False when the caller must send it.

    Approvals, boards (they need their keyboard) and private replies go the ordinary
    way; so does a reply whose final edit Telegram refuses, so it is never lost.
    """
    if sink is None or reply.approval is not None or reply.card is not None or reply.ephemeral:
        return False
    try:
        return await sink.finish(reply.text)
    except TelegramError as exc:
        log.warning("telegram_stream_finish_failed", error=str(exc))
        return False
