"""Is this Slack message for the bot? Decided here, once, and passed down.

A message is for the bot when it mentions the bot, is a DM, or is a reply in a
thread the bot has spoken in (a "followed" thread). In a followed thread a message
that mentions other people and not the bot is a conversation between them, so it
is left alone (``STATEBOT_SLACK_SKIP_OTHERS_MENTIONS``, on by default). The parser
(:func:`bots.adapters.slack.parse.parse_event`) has already stripped the bot's own mention
and nothing else; the record this returns carries ``bot_mentioned=True`` meaning
"addressed", so no layer below decides it again.
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
    """``msg`` marked as addressed to the bot, or None when the bot should stay quiet."""
    if event.get("type") == "app_mention" or msg.is_dm or msg.bot_mentioned:
        return dataclasses.replace(msg, bot_mentioned=True)
    if event.get("thread_ts") is None:
        return None
    if skip_others_mentions and for_someone_else(msg):
        return None
    if not await flags.has(thread_key(msg)):
        return None
    return dataclasses.replace(msg, bot_mentioned=True)
