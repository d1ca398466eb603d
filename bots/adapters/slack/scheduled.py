"""Scheduled replies on Slack: a reminder's answer posted into its channel and thread.

The target (``bots.chat.targets``) names the workspace, channel and thread; a user-scoped
session's target names the user, and Slack opens the DM (``conversations.open``).
The reply goes through :func:`bots.adapters.slack.reply.send_reply`, as an answer to a
message does: formatted, chunked, retried on 429 within the retry budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bots.adapters.slack.names import ClientFor
from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.reply import send_reply
from bots.adapters.slack.send import DeliveryError, SlackSender
from bots.chat.replies import Reply
from bots.chat.schedules import Deliver


def slack_delivery(client_for: ClientFor, options: SlackOptions) -> Deliver:
    """Post scheduled replies with each workspace's own client."""

    async def deliver(target: Mapping[str, Any], reply: Reply) -> None:
        workspace = str(target.get("workspace", ""))
        client = await client_for(workspace)
        if client is None:
            raise DeliveryError("chat.postMessage", f"app not installed in {workspace}")
        sender = SlackSender(client, retry_seconds=options.retry_seconds)
        channel = target.get("channel")
        user = str(target.get("user", ""))
        if not channel:
            opened = await sender.call("conversations_open", users=user)
            channel = (opened.get("channel") or {}).get("id")
            if not channel:
                raise DeliveryError("conversations.open", "no_channel")
        thread = target.get("thread")
        await send_reply(sender, str(channel), user, reply, str(thread) if thread else None)

    return deliver
