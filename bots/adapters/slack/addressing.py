"""Is this Slack message for the bot? The part of the decision that needs the flags.

The parser (:func:`bots.adapters.slack.parse.parse_event`) has already marked a
mention, an ``app_mention`` or a DM as ``addressed`` and stripped the bot's own
mention and nothing else. This adds replies in a thread the bot has spoken in (a
"followed" thread); there a message that mentions other people and not the bot is a
conversation between them, so it is left alone (``STATEBOT_SLACK_SKIP_OTHERS_MENTIONS``,
on by default). The record it returns carries ``addressed=True``, so no layer below
decides it again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from bots.inbound import InboundMessage
from bots.ops.flags import Flags

# The bot keeps following a thread it spoke in for a week of inactivity.
THREAD_TTL = 7 * 24 * 3600


def thread_key(msg: InboundMessage) -> str:
    """The flag naming a thread the bot has replied in."""
    return f"slack:thread:{msg.workspace}:{msg.channel}:{msg.thread}"


def for_someone_else(msg: InboundMessage) -> bool:
    """True when the message mentions people and the bot is not one of them."""
    return bool(msg.mentions) and not msg.bot_mentioned


async def addressed(
    flags: Flags, event: Mapping[str, Any], msg: InboundMessage, skip_others_mentions: bool
) -> InboundMessage | None:
    """``msg`` addressed to the bot, or None when the bot should stay quiet."""
    if msg.addressed:  # a mention or a DM (the parser decided)
        return msg
    if event.get("thread_ts") is None:
        return None
    if skip_others_mentions and for_someone_else(msg):
        return None
    if not await flags.has(thread_key(msg)):
        return None
    return dataclasses.replace(msg, addressed=True)
