"""Approve / Reject buttons on Slack: Block Kit out, ``block_actions`` back in.

A paused run's reply is posted with a section naming the tool and its arguments and
two buttons whose ``value`` carries the encoded :class:`bots.chat.approvals.Approval`
(Slack signs the request that brings it back, so it cannot be forged). The click is
acknowledged at once; the lazy listener applies it through the ChatService, replaces
the buttons with who decided, and posts the run's answer in the thread. Refusals
(not yours, already handled, expired) go to the clicker only.

The same buttons, labelled Confirm / Cancel, confirm an admin's ``/state restore`` or
``/state erase`` (``bots.admin.confirm``). That question is ephemeral (the admin alone
sees it), so its outcome replaces it through the click's ``response_url``.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import structlog
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bots.adapters.slack.format import to_mrkdwn
from bots.adapters.slack.send import SlackSender
from bots.chat.approvals import EXPIRED, Approval, Decision
from bots.chat.replies import Reply

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

APPROVE, REJECT = "statebot_approve", "statebot_reject"
ACTIONS = re.compile(rf"^({APPROVE}|{REJECT})$")


def approval_blocks(text: str, approval: Approval) -> list[dict[str, Any]]:
    """The question (a run's: plain text, nothing in it interpreted) and the two buttons."""
    value = approval.encode()
    yes, no = approval.labels
    # an admin question is built from ids only: as safe mrkdwn, its <@U…> shows a name
    question = (
        {"type": "mrkdwn", "text": to_mrkdwn(text)[:3000]}
        if approval.action
        else {"type": "plain_text", "text": text[:3000]}
    )
    return [
        {"type": "section", "text": question},
        {
            "type": "actions",
            "block_id": "statebot_approval",
            "elements": [
                _button(yes, APPROVE, value, "primary"),
                _button(no, REJECT, value, "danger"),
            ],
        },
    ]


def _button(label: str, action_id: str, value: str, style: str) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": label},
        "action_id": action_id,
        "value": value,
        "style": style,
    }


async def post_approval(
    sender: SlackSender, channel: str, thread: str | None, reply: Reply
) -> None:
    """Post the reply's question with its buttons (in the thread when there is one)."""
    assert reply.approval is not None
    params: dict[str, Any] = {"thread_ts": thread} if thread else {}
    await sender.call(
        "chat_postMessage",
        channel=channel,
        text=reply.text,
        blocks=approval_blocks(reply.text, reply.approval),
        unfurl_links=False,
        **params,
    )


def parse_decision(body: dict[str, Any]) -> Decision | None:
    """The Decision a ``block_actions`` payload carries; None when it is not ours."""
    actions = body.get("actions") or []
    if not actions or actions[0].get("action_id") not in (APPROVE, REJECT):
        return None
    user = body.get("user") or {}
    team = (body.get("team") or {}).get("id") or user.get("team_id") or ""
    approval = Approval.decode(str(actions[0].get("value", "")))
    if approval is None:
        return None
    workspace = str((body.get("enterprise") or {}).get("id") or team)
    return Decision(
        platform="slack",
        workspace=workspace,
        user=str(user.get("id", "")),
        approve=actions[0]["action_id"] == APPROVE,
        approval=approval,
        event_id=str(body.get("trigger_id") or actions[0].get("action_ts") or ""),
        team=str(team) if team and team != workspace else None,
    )


def decision_listener(service: ChatService) -> Callable[..., Awaitable[None]]:
    """Lazy listener applying an Approve / Reject click."""

    async def decide(body: dict[str, Any], client: AsyncWebClient, respond: AsyncRespond) -> None:
        channel = str((body.get("channel") or {}).get("id", ""))
        message = body.get("message") or {}
        thread = message.get("thread_ts") or message.get("ts")
        user = str((body.get("user") or {}).get("id", ""))
        sender = SlackSender(client)
        decision = parse_decision(body)
        if decision is None:
            await sender.ephemeral(channel, user, EXPIRED, thread)
            return
        reply = await service.handle_decision(decision)
        if decision.approval.action:  # an admin's question: its outcome replaces it
            await _settle_question(sender, respond, body, reply)
            return
        if reply.ephemeral:
            await sender.ephemeral(channel, user, reply.text, thread)
            return
        decided, _, answer = reply.text.partition("\n")
        if message.get("ts"):  # the buttons give way to who decided
            await sender.call(
                "chat_update", channel=channel, ts=message["ts"], text=decided, blocks=[]
            )
        if reply.approval is not None:
            await post_approval(sender, channel, thread, reply)
        elif answer:
            await sender.post(channel, answer, thread)

    return decide


async def _settle_question(
    sender: SlackSender, respond: AsyncRespond, body: dict[str, Any], reply: Reply
) -> None:
    """Show an admin question's outcome to the clicker, in place of the question if private."""
    channel = str((body.get("channel") or {}).get("id", ""))
    user = str((body.get("user") or {}).get("id", ""))
    container = body.get("container") or {}
    if not (container.get("is_ephemeral") and body.get("response_url")):
        message = body.get("message") or {}
        thread = message.get("thread_ts") or message.get("ts")
        await sender.ephemeral(channel, user, reply.text, thread)
        return
    first, *rest = sender.parts(reply.text) or ["Done."]
    await respond(text=first, replace_original=True, response_type="ephemeral")
    for part in rest:
        await respond(text=part, replace_original=False, response_type="ephemeral")


async def _ack(ack: AsyncAck) -> None:
    await ack()


def register_interactions(app: AsyncApp, service: ChatService) -> None:
    """Attach the Approve / Reject listener to ``app``."""
    app.action(ACTIONS)(ack=_ack, lazy=[decision_listener(service)])
