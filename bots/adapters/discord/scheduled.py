"""Scheduled replies on Discord: a reminder's answer posted into its channel or thread.

A Discord thread is a channel of its own, so the target's ``thread`` (else its
``channel``) is where the reply goes; a user-scoped session's target names the user,
whose DM channel is opened. The reply is sent like an answer to a message: chunked
at 2,000 characters, no mention ever pinging anyone (the client's allowed mentions),
an approval with its buttons; discord.py retries 429s itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import discord

from bots.adapters.discord.components import ApprovalStore, send_approval
from bots.adapters.discord.files import send_media
from bots.adapters.discord.traits import MESSAGE_LIMIT
from bots.chat.chunking import chunk_text
from bots.chat.replies import Reply
from bots.chat.schedules import Deliver


class DeliveryHost(Protocol):
    """What posting needs of the client (``StatebotDiscord`` is one), which passes itself."""

    approvals: ApprovalStore

    def get_partial_messageable(self, id: int, /) -> discord.PartialMessageable:
        """A channel or thread to post in, by id."""
        ...

    async def fetch_user(self, user_id: int, /) -> discord.User:
        """The user whose DM channel a user-scoped session's reply goes to."""
        ...


def discord_delivery(client: DeliveryHost) -> Deliver:
    """Post scheduled replies through ``client``."""

    async def deliver(target: Mapping[str, Any], reply: Reply) -> None:
        where = target.get("thread") or target.get("channel")
        if where:
            channel: Any = client.get_partial_messageable(int(where))
        else:
            user = await client.fetch_user(int(target.get("user") or 0))
            channel = await user.create_dm()
        if reply.approval is not None:
            await send_approval(channel, reply, client.approvals)
            return
        for part in chunk_text(reply.text, MESSAGE_LIMIT) or ["Done."]:
            await channel.send(part)
        await send_media(channel, reply.media)  # a tool's images and files, after the text

    return deliver
