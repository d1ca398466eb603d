"""Keyboard clicks (callback queries): board buttons and approvals, the shared click path.

A board button runs through :meth:`bots.chat.service.ChatService.handle_click` (the
command path) and the board message is edited in place with the new board and
keyboard. A button that asks first (delete) posts its question with one button; that
button runs the click, redraws the board and replaces the question with the outcome.

Approve / Reject go through :meth:`~bots.chat.service.ChatService.handle_decision`,
which lets only the asker (or an admin) decide. A decision removes the buttons and
posts the run's answer under the question; an admin's confirmation (``/state
restore``) replaces its question with the outcome.

Telegram keeps a spinner on the button until the query is answered, and the answer's
text is the only thing shown to the clicker alone. So the work starts first: a
refusal ("not yours", "already handled", a stale board) comes back at once and is
shown to the clicker only, as an alert; work that takes longer than
:data:`ANSWER_WITHIN` has its query answered empty, and a private outcome then goes
the way of every private reply (``bots.adapters.telegram.send``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any

import structlog
from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bots.adapters.telegram.keyboards import CALLBACK, card_keyboard, confirm_keyboard
from bots.adapters.telegram.parse import PLATFORM, Press
from bots.adapters.telegram.render import card_markdown, render
from bots.adapters.telegram.send import Where, send_reply
from bots.chat.approvals import EXPIRED, Approval, Decision
from bots.chat.button_store import ButtonStore
from bots.chat.cards import decode_action
from bots.chat.replies import Reply
from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

__all__ = ["ANSWER_WITHIN", "BUTTON_EXPIRED", "handle_press"]

#: seconds a click's work may take before its query is answered without text
ANSWER_WITHIN = 2.0
ALERT_LIMIT = 200  # characters an answerCallbackQuery text may hold
BUTTON_EXPIRED = "That button has expired; nothing was done. List the board again."


async def handle_press(bot: Bot, press: Press, service: ChatService, buttons: ButtonStore) -> None:
    """Apply one click; every outcome is shown to someone."""
    match = CALLBACK.fullmatch(press.data)
    stored = await buttons.get(match["token"]) if match else None
    if match is None or stored is None:
        await _alert(bot, press, BUTTON_EXPIRED)
        return
    if match["kind"] == "c":
        await _card(bot, press, service, buttons, stored)
        return
    approval = Approval.decode(stored)
    if approval is None:
        await _alert(bot, press, EXPIRED)
        return
    await _decide(bot, press, service, buttons, approval, approve=match["kind"] == "y")


async def _alert(bot: Bot, press: Press, text: str) -> None:
    await bot.answer_callback_query(press.query_id, text=text[:ALERT_LIMIT], show_alert=True)


async def _answered(bot: Bot, press: Press, work: Awaitable[Reply]) -> tuple[Reply, bool]:
    """Run ``work``; a quick private outcome is the query's alert. (reply, shown already)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=ANSWER_WITHIN)
    if not done:
        await bot.answer_callback_query(press.query_id)
        return await task, False
    reply = task.result()
    if reply.ephemeral and len(reply.text) <= ALERT_LIMIT:
        await _alert(bot, press, reply.text)
        return reply, True
    await bot.answer_callback_query(press.query_id)
    return reply, False


def _where(press: Press, reply_to: int | None = None) -> Where:
    assert press.chat is not None
    return Where(
        chat=int(press.chat),
        thread=int(press.thread) if press.thread else None,
        reply_to=reply_to,
        is_dm=press.is_dm,
        user=int(press.user),
    )


async def _decide(
    bot: Bot,
    press: Press,
    service: ChatService,
    buttons: ButtonStore,
    approval: Approval,
    *,
    approve: bool,
) -> None:
    decision = Decision(
        platform=PLATFORM,
        workspace=press.workspace,
        user=press.user,
        approve=approve,
        approval=approval,
        event_id=press.query_id,
    )
    reply, shown = await _answered(bot, press, service.handle_decision(decision))
    if shown or press.chat is None or press.message_id is None:
        return
    if reply.ephemeral:
        await send_reply(bot, _where(press), reply, buttons)
        return
    chat, message = int(press.chat), press.message_id
    if approval.action:  # an admin's question: the outcome takes its place
        await _edit(bot, chat, message, render(reply.text[:4000]), None)
        return
    await _edit_keyboard(bot, chat, message)  # decided: no more buttons
    await send_reply(bot, _where(press, reply_to=message), reply, buttons)


async def _card(
    bot: Bot, press: Press, service: ChatService, buttons: ButtonStore, stored: str
) -> None:
    data: dict[str, Any] = json.loads(stored)
    click = decode_action(
        str(data["value"]),
        platform=PLATFORM,
        workspace=press.workspace,
        user=press.user,
        event_id=press.query_id,
    )
    if click is None or press.chat is None or press.message_id is None:
        await _alert(bot, press, BUTTON_EXPIRED)
        return
    if data.get("confirm"):  # delete asks first, under the board
        await bot.answer_callback_query(press.query_id)
        value = {
            "value": data["value"],
            "board": [press.chat, press.message_id],
            "label": data.get("label"),
        }
        keyboard = await confirm_keyboard(buttons, value)
        await send_reply_with(bot, press, str(data["confirm"]), keyboard)
        return
    reply, shown = await _answered(bot, press, service.handle_click(click))
    board: list[Any] | None = data.get("board")
    if board:  # the click confirmed a question: redraw the board, the outcome replaces it
        await _redraw(bot, int(board[0]), int(board[1]), reply, buttons)
        await _edit(bot, int(press.chat), press.message_id, render(reply.text[:4000]), None)
        return
    await _redraw(bot, int(press.chat), press.message_id, reply, buttons)
    if reply.card is None and not shown:
        await send_reply(bot, _where(press), reply, buttons)


async def send_reply_with(bot: Bot, press: Press, question: str, keyboard: Any) -> None:
    """Post ``question`` with ``keyboard`` where the press happened."""
    where = _where(press, reply_to=press.message_id)
    await bot.send_message(
        where.chat,
        render(question),
        parse_mode=ParseMode.MARKDOWN_V2,
        message_thread_id=where.thread,
        reply_markup=keyboard,
    )


async def _redraw(bot: Bot, chat: int, message: int, reply: Reply, buttons: ButtonStore) -> None:
    if reply.card is None:
        return
    keyboard = await card_keyboard(buttons, reply.card)
    await _edit(bot, chat, message, card_markdown(reply.card), keyboard)


async def _edit(bot: Bot, chat: int, message: int, text: str, keyboard: Any) -> None:
    """Replace a message's text and keyboard; an unchanged board is not an error."""
    try:
        await bot.edit_message_text(
            text, chat, message, parse_mode=ParseMode.MARKDOWN_V2, reply_markup=keyboard
        )
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise
        log.info("telegram_board_unchanged", chat=chat, message=message)


async def _edit_keyboard(bot: Bot, chat: int, message: int) -> None:
    try:
        await bot.edit_message_reply_markup(chat, message, reply_markup=None)
    except BadRequest as exc:
        if "not modified" not in str(exc).lower():
            raise
