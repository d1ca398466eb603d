"""Discord's traits: what shared modules know about it (``bots.platforms``)."""

from __future__ import annotations

import re

from bots.platforms import PlatformTraits, register_traits

__all__ = ["MESSAGE_LIMIT", "TRAITS"]

#: characters one Discord message may hold
MESSAGE_LIMIT = 2000


def _is_dm_channel(workspace: str, channel: str) -> bool:
    # a DM has no guild: its keys carry the workspace ``dm`` (bots.adapters.discord.parse)
    return workspace == "dm"


TRAITS = PlatformTraits(
    name="discord",
    message_limit=MESSAGE_LIMIT,
    reply_placement="channel",
    is_dm_channel=_is_dm_channel,
    user_id_pattern=re.compile(r"\d{1,20}"),  # snowflakes
    mention_markup="<@{user}>",
    # <@123>, or <@!123> for a member's server nickname; <#123>
    user_mention=re.compile(r"<@!?(?P<id>\d+)>"),
    channel_mention=re.compile(r"<#(?P<id>\d+)>"),
)

# known as soon as any module of the platform is imported (its package face imports
# this one), so code driving the adapter without the registry still finds them
register_traits(TRAITS)
