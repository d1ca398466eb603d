"""Scheduled replies on Telegram: a reminder's answer posted into its chat and topic.

The target names the chat (``channel``) and the forum topic (``thread``) the
schedule was made in; a user-scoped session's target names the user, whose private
chat has the user's id. The reply is sent like an answer: rendered, chunked, with
its keyboard, flood control waited out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from telegram import Bot

from bots.adapters.telegram.send import Where, send_reply
from bots.chat.button_store import ButtonStore
from bots.chat.replies import Reply
from bots.chat.schedules import Deliver


def telegram_delivery(bot: Bot, buttons: ButtonStore) -> Deliver:
    """Post scheduled replies through ``bot``."""

    async def deliver(target: Mapping[str, Any], reply: Reply) -> None:
        chat = target.get("channel") or target.get("user")
        if not chat:
            raise ValueError(f"a Telegram target names no chat: {dict(target)!r}")
        thread = target.get("thread")
        where = Where(chat=int(chat), thread=int(thread) if thread else None)
        await send_reply(bot, where, reply, buttons)

    return deliver
