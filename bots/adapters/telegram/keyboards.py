"""Inline keyboards: a board's buttons and an approval's Approve / Reject.

Telegram's ``callback_data`` holds at most 64 bytes, far less than a click needs
(:func:`bots.chat.cards.button_value`, :meth:`bots.chat.approvals.Approval.encode`),
so the value is kept in a :class:`ButtonStore` (Redis when ``REDIS_URL`` is set, shared
by every process; else this process's memory) under a digest of itself, and the
button carries ``c:<digest>`` (a board button) or ``y:`` / ``n:<digest>`` (approve,
reject). Only the bot writes its buttons, and a digest names exactly one value.

A board gets one row per item (``#3 ▶``, ``#3 ✓``, ``#3 ✕``), up to :data:`MAX_ROWS`;
the add form has no Telegram counterpart (no dialogs): items are added with the
command (``/taskboard add …``) or by asking.
"""

from __future__ import annotations

import json
import re
from typing import Any

import structlog
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bots.chat.approvals import Approval
from bots.chat.button_store import ButtonStore
from bots.chat.button_store import buttons_for as shared_buttons_for
from bots.chat.cards import Card, Control, Controls, Item, button_value
from bots.settings import Settings

log = structlog.get_logger(__name__)

#: rows of item buttons on one board (Telegram refuses very large keyboards)
MAX_ROWS = 30
CALLBACK = re.compile(r"(?P<kind>[cyn]):(?P<token>[0-9a-f]{32})")


def buttons_for(settings: Settings) -> ButtonStore:
    """Telegram's buttons: in Redis under ``statebot:telegram:button:`` when REDIS_URL is
    set, else in this process's memory (:mod:`bots.chat.button_store`)."""
    return shared_buttons_for(settings, prefix="statebot:telegram:", kind="button")


async def approval_keyboard(store: ButtonStore, approval: Approval) -> InlineKeyboardMarkup:
    """Approve / Reject (Confirm / Cancel for an admin action) for ``approval``."""
    token = await store.put(approval.encode())
    yes, no = approval.labels
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(yes, callback_data=f"y:{token}"),
                InlineKeyboardButton(no, callback_data=f"n:{token}"),
            ]
        ]
    )


async def card_keyboard(store: ButtonStore, card: Card) -> InlineKeyboardMarkup | None:
    """One row of buttons per item of a placed card; None when it has none."""
    controls = card.controls
    if controls is None or not controls.session_id:
        return None
    rows: list[list[InlineKeyboardButton]] = []
    for item in controls.items[:MAX_ROWS]:
        row = []
        for control in item.controls:
            token = await store.put(stored(controls, control))
            row.append(InlineKeyboardButton(_label(item, control), callback_data=f"c:{token}"))
        if row:
            rows.append(row)
    if len(controls.items) > MAX_ROWS:
        log.info("telegram_board_items_hidden", hidden=len(controls.items) - MAX_ROWS)
    return InlineKeyboardMarkup(rows) if rows else None


async def confirm_keyboard(store: ButtonStore, value: dict[str, Any]) -> InlineKeyboardMarkup:
    """The one button that runs a delete once asked (``value`` names the board too)."""
    token = await store.put(json.dumps(value, sort_keys=True))
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(value.get("label") or "Yes", callback_data=f"c:{token}")]]
    )


def _label(item: Item, control: Control) -> str:
    """``#3 ✓``: the item's short name and the control's sign; else label and text."""
    if item.short and control.icon:
        return f"{item.short} {control.icon}"
    return f"{control.label}: {item.text}"[:64]


def stored(controls: Controls, control: Control) -> str:
    """What one button runs, as the store keeps it."""
    value: dict[str, Any] = {"value": button_value(controls, control)}
    if control.confirm:
        value.update(confirm=control.confirm, label=control.label)
    return json.dumps(value, sort_keys=True)
