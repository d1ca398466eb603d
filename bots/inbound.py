"""Platform-neutral inbound events: what every adapter turns a platform payload into.

Nothing below an adapter sees a platform type; routing, keying and the agents work
on these two frozen records only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class InboundMessage:
    """One chat message addressed (maybe) to the bot.

    ``thread`` is the conversation the message belongs to: the thread id when the
    message is in a thread, else the message's own id, so a top-level message
    starts its own thread-scoped session.
    """

    platform: str
    workspace: str
    channel: str
    thread: str | None
    user: str
    text: str
    event_id: str
    is_dm: bool = False
    mentions: tuple[str, ...] = ()
    bot_mentioned: bool = False


@dataclass(frozen=True, slots=True)
class SlashCommand:
    """One slash command: ``/<command> <text>`` typed by ``user``."""

    platform: str
    workspace: str
    channel: str
    thread: str | None
    user: str
    command: str
    text: str
    event_id: str
    is_dm: bool = False
