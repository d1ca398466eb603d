"""The terminal console's traits: what shared modules know about it (``bots.platforms``)."""

from __future__ import annotations

import re

from bots.platforms import PlatformTraits, register_traits

__all__ = ["TRAITS"]

TRAITS = PlatformTraits(
    name="console",
    message_limit=None,  # a terminal prints any length
    reply_placement="inline",
    # whoever runs the console is its one user: named as they typed it, never markup
    user_id_pattern=re.compile(r".+", re.DOTALL),
    mention_markup="@{user}",
    # a terminal has no mention list: the chat platforms' markup, typed or pasted, is
    # read as in chat (/state erase <@ann>, <#general>)
    user_mention=re.compile(r"<@!?(?P<id>[A-Z0-9]+)(?:\|(?P<label>[^<>]*))?>", re.IGNORECASE),
    channel_mention=re.compile(r"<#(?P<id>[A-Z0-9]+)(?:\|(?P<label>[^<>]*))?>", re.IGNORECASE),
)

# known as soon as any module of the platform is imported (its package face imports
# this one), so code driving the adapter without the registry still finds them
register_traits(TRAITS)
