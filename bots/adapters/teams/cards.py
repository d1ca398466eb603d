"""Adaptive Cards for Teams: a board with its buttons, an approval with Approve / Reject.

Every button is an ``Action.Execute`` (Teams' Universal Actions) whose ``data`` holds
everything a click needs, in any process, after any restart: a board button carries
its :func:`bots.chat.cards.button_value`, an approval its :meth:`Approval.encode`. A
click comes back as an ``adaptiveCard/action`` invoke (a client that only knows
``Action.Submit`` sends the same ``data`` as a message) and goes through the click
path Slack's and Discord's buttons take (``ChatService.handle_click`` /
``handle_decision``). Delete asks first: its button opens a small card
(``Action.ShowCard``) whose button deletes. The add form is a ShowCard with one input
per field.
"""

from __future__ import annotations

import json
from typing import Any

from bots.adapters.teams.text import card_text
from bots.chat.approvals import Approval
from bots.chat.cards import Card, Controls, Section, button_value, encode_action

CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"
VERSION = "1.5"
VERB = "statebot"
#: prefix of the input ids of an add form (the field's name follows)
FIELD = "field:"
#: bytes of card JSON one message may carry (Teams refuses a message over ~28 KB)
CARD_LIMIT = 25_000


def _card(
    body: list[dict[str, Any]], actions: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    card: dict[str, Any] = {"type": "AdaptiveCard", "$schema": SCHEMA, "version": VERSION}
    card["body"] = body
    if actions:
        card["actions"] = actions
    return card


def _text(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextBlock", "text": card_text(text), "wrap": True, **style}


def _execute(title: str, data: dict[str, Any], style: str = "") -> dict[str, Any]:
    action: dict[str, Any] = {"type": "Action.Execute", "title": title, "verb": VERB, "data": data}
    if style in ("positive", "destructive"):
        action["style"] = style
    return action


_STYLES = {"primary": "positive", "danger": "destructive"}


def _section(section: Section) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if section.heading:
        blocks.append(_text(section.heading, weight="Bolder", spacing="Medium"))
    if section.code:
        blocks.append(_text("\n".join(section.lines), fontType="Monospace"))
    else:
        blocks.extend(_text(line, spacing="Small") for line in section.lines)
    return blocks


def _item_actions(controls: Controls, index: int) -> list[dict[str, Any]]:
    actions = []
    for control in controls.items[index].controls:
        data = {"statebot": "card", "value": button_value(controls, control)}
        style = _STYLES.get(control.style, "")
        if control.confirm:  # Delete asks first, inside the card
            ask = _card([_text(control.confirm)], [_execute(control.label, data, style)])
            actions.append({"type": "Action.ShowCard", "title": control.label, "card": ask})
        else:
            actions.append(_execute(control.label, data, style))
    return actions


def _form(controls: Controls) -> dict[str, Any] | None:
    form = controls.form
    if form is None:
        return None
    inputs = [
        {
            "type": "Input.Text",
            "id": f"{FIELD}{f.name}",
            "label": f.label,
            "placeholder": f.hint,
            "isRequired": f.required,
            **({"errorMessage": f"{f.label} is required"} if f.required else {}),
        }
        for f in form.fields
    ]
    base = encode_action(
        controls.agent_id,
        controls.session_id,
        form.tool,
        {},
        controls.view,
        json.loads(controls.view_arguments),
    )
    submit = _execute(form.label, {"statebot": "form", "value": base}, "positive")
    return {"type": "Action.ShowCard", "title": form.label, "card": _card(inputs, [submit])}


def board_card(card: Card) -> dict[str, Any]:
    """The Adaptive Card of a :class:`Card`: title, sections, each item's buttons, footer."""
    body: list[dict[str, Any]] = [_text(card.title, weight="Bolder", size="Medium")]
    controls = card.controls
    clickable = controls is not None and bool(controls.session_id)
    if controls is not None and clickable and controls.items:
        for index, item in enumerate(controls.items):
            body.append(_text(item.text, spacing="Small", separator=index == 0))
            body.append({"type": "ActionSet", "actions": _item_actions(controls, index)})
    else:
        for section in card.sections:
            body.extend(_section(section))
    if card.footer:
        body.append(_text(card.footer, isSubtle=True, size="Small", spacing="Medium"))
    form = _form(controls) if controls is not None and clickable else None
    return _card(body, [form] if form is not None else None)


def approval_card(text: str, approval: Approval) -> dict[str, Any]:
    """The question (``Approve clear_board({…})?``) with its two buttons."""
    encoded = approval.encode()
    yes, no = approval.labels
    return _card(
        [_text(text)],
        [
            _execute(
                yes, {"statebot": "approval", "approve": True, "approval": encoded}, "positive"
            ),
            _execute(no, {"statebot": "approval", "approve": False, "approval": encoded}),
        ],
    )


def decided_card(text: str) -> dict[str, Any]:
    """What a decided question becomes: its outcome, no buttons."""
    return _card([_text(text)])


def attachment(card: dict[str, Any]) -> dict[str, Any]:
    """The message attachment carrying ``card``."""
    return {"contentType": CONTENT_TYPE, "content": card}


def fits(card: dict[str, Any]) -> bool:
    """Whether ``card`` fits in one Teams message (else its text is sent instead)."""
    return len(json.dumps(card, ensure_ascii=False).encode()) <= CARD_LIMIT
