"""Slack's traits: what shared modules know about it (``bots.platforms``)."""

from __future__ import annotations

import re

from bots.platforms import PlatformTraits, register_traits

__all__ = ["MESSAGE_LIMIT", "TRAITS"]

#: characters one Slack message (a section) may hold before it is chunked
MESSAGE_LIMIT = 3000


def _is_dm_channel(workspace: str, channel: str) -> bool:
    # Slack names direct-message conversations D…; channels C…, private groups G…
    return channel.startswith("D")


TRAITS = PlatformTraits(
    name="slack",
    message_limit=MESSAGE_LIMIT,
    reply_placement="thread",
    is_dm_channel=_is_dm_channel,
    user_id_pattern=re.compile(r"[UW][A-Z0-9]{2,}"),
    mention_markup="<@{user}>",
    # <@U123> or <@U123|name>; <#C123> or <#C123|general>
    user_mention=re.compile(r"<@(?P<id>[A-Z0-9]+)(?:\|(?P<label>[^<>]*))?>", re.IGNORECASE),
    channel_mention=re.compile(r"<#(?P<id>[A-Z0-9]+)(?:\|(?P<label>[^<>]*))?>", re.IGNORECASE),
)

# known as soon as any module of the platform is imported (its package face imports
# this one), so code driving the adapter without the registry still finds them
register_traits(TRAITS)
