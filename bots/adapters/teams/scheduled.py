"""Scheduled replies on Teams: a reminder's answer posted into its conversation.

The target (``bots.chat.targets``) names the tenant, the conversation and, in a
channel, the reply chain; the reply goes there proactively through the SDK's
``continue_conversation``, to the Bot Connector the tenant last wrote from (else
``TEAMS_SERVICE_URL``), as a card or text like an answer, each post retried on
429/5xx within ``TEAMS_SEND_TIMEOUT``. A user-scoped session's target names only a
user; Teams needs a conversation to post in, so that reminder fails with a clear
error (the scheduler logs it and retries).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from microsoft_agents.activity import ConversationReference
from microsoft_agents.hosting.core import ChannelServiceAdapter, TurnContext

from bots.adapters.teams.names import TeamsNames
from bots.adapters.teams.parse import conversation_id
from bots.adapters.teams.replies import deliver
from bots.adapters.teams.send import Sender
from bots.chat.replies import Reply
from bots.chat.schedules import Deliver

CHANNEL_ID = "msteams"


class DeliveryHost(Protocol):
    """What posting needs of the bot (``TeamsBot`` is one), which passes itself."""

    adapter: ChannelServiceAdapter
    app_id: str
    budget: float
    service_urls: dict[str, str]
    names: TeamsNames


def reference_for(
    target: Mapping[str, Any], *, app_id: str, service_url: str
) -> ConversationReference:
    """The conversation reference of a schedule target (ValueError without a conversation)."""
    channel = target.get("channel")
    if not channel:
        raise ValueError(
            "a Teams reminder needs a conversation to post in; this one names only a user"
        )
    tenant = str(target.get("workspace") or "")
    return ConversationReference.model_validate(
        {
            "channelId": CHANNEL_ID,
            "serviceUrl": service_url,
            "bot": {"id": f"28:{app_id}"},
            "conversation": {
                "id": conversation_id(str(channel), target.get("thread")),
                "tenantId": tenant,
            },
        }
    )


def teams_delivery(host: DeliveryHost, default_service_url: str) -> Deliver:
    """Post scheduled replies through ``host``."""

    async def post(target: Mapping[str, Any], reply: Reply) -> None:
        url = host.service_urls.get(str(target.get("workspace")), default_service_url)
        reference = reference_for(target, app_id=host.app_id, service_url=url)

        async def turn(context: TurnContext) -> None:
            await deliver(Sender(context, host.budget, host.names.known), reply)

        continuation = reference.get_continuation_activity()
        continuation.id = None  # a new post in the conversation, not a reply to a message
        await host.adapter.continue_conversation(host.app_id, continuation, turn)

    return post
