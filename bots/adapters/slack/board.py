"""Clickable cards on Slack: per-item buttons, an "add" modal, the board updated in place.

A card with :class:`bots.chat.cards.Controls` renders as a header, one section and one
actions block per item (delete asks Slack's confirmation dialog first), the footer,
and an "add" button. Every button's ``value`` carries what the click runs
(:func:`bots.chat.cards.button_value`); Slack signs the request that brings it back. The
click is acknowledged at once; the lazy listener runs it through
:meth:`bots.chat.service.ChatService.handle_click` (the slash-command path: lease, state
check, save) and redraws the message with ``chat.update``. A stale click gets an
ephemeral reply and the board is redrawn as it now is. The add button opens a modal
(``views.open``); its submission runs the form's tool the same way.

A card too large for Block Kit with buttons (more than 22 items) falls back to the
plain card with only the add button.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.blocks import MAX_BLOCKS, card_blocks
from bots.adapters.slack.format import to_mrkdwn
from bots.adapters.slack.parse import workspace_of
from bots.adapters.slack.send import DeliveryError, SlackSender
from bots.chat.cards import (
    Card,
    Click,
    Controls,
    Form,
    button_value,
    decode_action,
    encode_action,
    form_for,
)
from bots.chat.registry import tools_of
from bots.chat.replies import Reply

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

ITEM_ACTION = "statebot_card_item"
FORM_ACTION = "statebot_card_form"
FORM_VIEW = "statebot_card_form"
UNREADABLE = "That button could not be read; nothing was done. Please list the board again."
_LABEL_LIMIT = 75


def board_blocks(card: Card, note: str = "") -> list[dict[str, Any]] | None:
    """Blocks for ``card`` with its buttons; ``note``: a line saying what a click did."""
    controls = card.controls
    plain = card_blocks(card)
    if controls is None:
        return plain
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": card.title, "emoji": False}}
    ]
    for n, item in enumerate(controls.items):
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": to_mrkdwn(item.text)}})
        buttons = [
            _button(c.label, ITEM_ACTION, button_value(controls, c), c.style, c.confirm)
            for c in item.controls
        ]
        blocks.append({"type": "actions", "block_id": f"statebot_item_{n}", "elements": buttons})
    tail = _tail(card, controls, note)
    if len(blocks) + len(tail) > MAX_BLOCKS:
        if plain is None:
            return None
        blocks = plain if not card.footer else plain[:-1]
    return [*blocks, *tail] if len(blocks) + len(tail) <= MAX_BLOCKS else plain


def _tail(card: Card, controls: Controls, note: str) -> list[dict[str, Any]]:
    lines = [line for line in (note, card.footer) if line]
    tail: list[dict[str, Any]] = []
    if lines:
        text = to_mrkdwn(" · ".join(lines))[:3000]
        tail.append({"type": "context", "elements": [{"type": "mrkdwn", "text": text}]})
    if controls.form is not None:
        value = encode_action(
            controls.agent_id,
            controls.session_id,
            controls.form.tool,
            {},
            controls.view,
            json.loads(controls.view_arguments),
        )
        button = _button(controls.form.label, FORM_ACTION, value, "primary", "")
        tail.append({"type": "actions", "block_id": "statebot_form", "elements": [button]})
    return tail


def _button(label: str, action_id: str, value: str, style: str, confirm: str) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "text": {"type": "plain_text", "text": label[:_LABEL_LIMIT]},
        "action_id": action_id,
        "value": value,
    }
    if style:
        button["style"] = style
    if confirm:
        button["confirm"] = {
            "title": {"type": "plain_text", "text": "Are you sure?"},
            "text": {"type": "plain_text", "text": confirm[:300]},
            "confirm": {"type": "plain_text", "text": label[:30]},
            "deny": {"type": "plain_text", "text": "Cancel"},
            "style": "danger",
        }
    return button


def form_view(form: Form, value: str, channel: str, ts: str) -> dict[str, Any]:
    """The modal of an add form; ``private_metadata`` carries what the submission runs."""
    blocks = []
    for field in form.fields:
        element: dict[str, Any] = {"type": "plain_text_input", "action_id": field.name}
        if field.hint:
            element["placeholder"] = {"type": "plain_text", "text": field.hint[:150]}
        blocks.append(
            {
                "type": "input",
                "block_id": field.name,
                "optional": not field.required,
                "label": {"type": "plain_text", "text": field.label},
                "element": element,
            }
        )
    metadata = json.dumps({"value": value, "channel": channel, "ts": ts}, separators=(",", ":"))
    return {
        "type": "modal",
        "callback_id": FORM_VIEW,
        "title": {"type": "plain_text", "text": form.label[:24]},
        "submit": {"type": "plain_text", "text": "Add"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "private_metadata": metadata,
        "blocks": blocks,
    }


def _who(body: dict[str, Any]) -> tuple[str, str]:
    """(workspace, user) of an interaction, the workspace decided as for every payload."""
    user = body.get("user") or {}
    try:
        workspace = workspace_of(body)
    except ValueError:
        workspace = str(user.get("team_id") or "")
    return workspace, str(user.get("id", ""))


def parse_click(body: dict[str, Any]) -> Click | None:
    """The Click a ``block_actions`` payload of a card button carries, or None."""
    actions = body.get("actions") or []
    if not actions:
        return None
    workspace, user = _who(body)
    event_id = str(body.get("trigger_id") or actions[0].get("action_ts") or "")
    return decode_action(
        str(actions[0].get("value", "")),
        platform="slack",
        workspace=workspace,
        user=user,
        event_id=event_id,
    )


def parse_submission(body: dict[str, Any]) -> tuple[Click, str, str] | None:
    """(the Click, channel, board ts) of a submitted add form, or None."""
    view = body.get("view") or {}
    try:
        meta = json.loads(view.get("private_metadata") or "")
    except ValueError:
        return None
    if not isinstance(meta, dict):
        return None
    workspace, user = _who(body)
    click = decode_action(
        str(meta.get("value", "")),
        platform="slack",
        workspace=workspace,
        user=user,
        event_id=str(view.get("id", "")),
    )
    if click is None:
        return None
    arguments: dict[str, Any] = {}
    for block_id, inputs in ((view.get("state") or {}).get("values") or {}).items():
        typed = (inputs.get(block_id) or {}).get("value")
        if isinstance(typed, str) and typed.strip():
            arguments[block_id] = typed.strip()
    click = Click(
        click.platform,
        click.workspace,
        click.user,
        click.agent_id,
        click.session_id,
        click.tool,
        arguments,
        click.view,
        click.view_arguments,
        click.event_id,
    )
    return click, str(meta.get("channel", "")), str(meta.get("ts", ""))


async def show_result(sender: SlackSender, channel: str, ts: str, user: str, reply: Reply) -> None:
    """Redraw the board in place and tell the clicker what happened."""
    if reply.card is not None and ts:
        note = "" if reply.ephemeral else f"<@{user}>: {reply.text}"
        blocks = board_blocks(reply.card, note)
        if blocks is not None:
            await sender.call("chat_update", channel=channel, ts=ts, text=reply.text, blocks=blocks)
    if reply.ephemeral or reply.card is None or not ts:
        await sender.ephemeral(channel, user, reply.text, None)


def click_listener(service: ChatService) -> Callable[..., Awaitable[None]]:
    """Lazy listener running a card button."""

    async def clicked(body: dict[str, Any], client: AsyncWebClient) -> None:
        channel = str((body.get("channel") or {}).get("id", ""))
        ts = str(
            (body.get("container") or {}).get("message_ts")
            or (body.get("message") or {}).get("ts")
            or ""
        )
        sender = SlackSender(client)
        click = parse_click(body)
        _, user = _who(body)
        try:
            if click is None:
                await sender.ephemeral(channel, user, UNREADABLE, None)
                return
            await show_result(sender, channel, ts, user, await service.handle_click(click))
        except DeliveryError as exc:
            log.error("slack_click_reply_failed", method=exc.method, error=exc.error)

    return clicked


def form_opener(service: ChatService) -> Callable[..., Awaitable[None]]:
    """Lazy listener opening the add form's modal (``trigger_id`` lives 3 s)."""

    async def open_form(body: dict[str, Any], client: AsyncWebClient) -> None:
        channel = str((body.get("channel") or {}).get("id", ""))
        ts = str((body.get("container") or {}).get("message_ts") or "")
        click = parse_click(body)
        sender = SlackSender(client)
        _, user = _who(body)
        form = _form_of(service, click)
        try:
            if click is None or form is None:
                await sender.ephemeral(channel, user, UNREADABLE, None)
                return
            view = form_view(form, click.encode(), channel, ts)
            await sender.call("views_open", trigger_id=body.get("trigger_id"), view=view)
        except DeliveryError as exc:
            log.error("slack_form_open_failed", method=exc.method, error=exc.error)

    return open_form


def _form_of(service: ChatService, click: Click | None) -> Form | None:
    """The form a click's card offers, as the agent's current tools define it."""
    if click is None:
        return None
    agent_id = service.agents.id_of(click.agent_id)
    if agent_id is None:
        return None
    form = form_for(tools_of(service.agents[agent_id]).get(click.view))
    return form if form is not None and form.tool == click.tool else None


def form_submitter(service: ChatService) -> Callable[..., Awaitable[None]]:
    """Lazy listener running a submitted add form."""

    async def submitted(body: dict[str, Any], client: AsyncWebClient) -> None:
        parsed = parse_submission(body)
        sender = SlackSender(client)
        if parsed is None:
            log.warning("slack_form_unreadable")
            return
        click, channel, ts = parsed
        try:
            await show_result(sender, channel, ts, click.user, await service.handle_click(click))
        except DeliveryError as exc:
            log.error("slack_form_reply_failed", method=exc.method, error=exc.error)

    return submitted


async def _ack(ack: AsyncAck) -> None:
    await ack()


def register_board(app: AsyncApp, service: ChatService) -> None:
    """Attach the card button, add-form and modal-submission listeners to ``app``."""
    app.action(re.compile(rf"^{ITEM_ACTION}$"))(ack=_ack, lazy=[click_listener(service)])
    app.action(re.compile(rf"^{FORM_ACTION}$"))(ack=_ack, lazy=[form_opener(service)])
    app.view(FORM_VIEW)(ack=_ack, lazy=[form_submitter(service)])
