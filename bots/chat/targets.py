"""Where a scheduled run's reply goes: the platform target, a small JSON object.

Stored with the schedule when a tool schedules a run (the chat layer puts it in the
run's metadata under :data:`core.schedule.TARGET_KEY`); core keeps it as opaque text.
At fire time the adapter of ``platform`` posts the reply there, through its normal
delivery path. Shape::

    {"platform": "slack", "workspace": "T1", "channel": "C1", "thread": "1700.1"}
    {"platform": "slack", "workspace": "T1", "user": "U1"}          # a DM to the user

A schedule made without one (a run whose caller gave no metadata) goes where its
session lives: a session id names its platform, workspace, channel and thread
(:mod:`bots.keys`), so the target is read back from it, the same rule as a reply.
"""

from __future__ import annotations

from typing import Any

from bots.inbound import InboundMessage, SlashCommand
from bots.keys import unescape
from bots.platforms import traits_for


def target_of(event: InboundMessage | SlashCommand) -> dict[str, Any]:
    """The target of a later reply to ``event``: its channel and the thread its reply
    went to (the adapter's ``reply_thread``); in a DM, the top level."""
    thread = None if event.is_dm else event.reply_thread
    return {
        "platform": event.platform,
        "workspace": event.workspace,
        "channel": event.channel,
        "thread": thread,
    }


def target_from_session(session_id: str) -> dict[str, Any] | None:
    """The target a session id names, or None when it is not a chat session key."""
    parts = session_id.split(":")
    if len(parts) not in (3, 4) or not all(parts):
        return None
    platform, workspace = unescape(parts[0]), unescape(parts[1])
    if len(parts) == 3 and parts[2].startswith("@"):
        return {"platform": platform, "workspace": workspace, "user": unescape(parts[2][1:])}
    channel = unescape(parts[2])
    thread = unescape(parts[3]) if len(parts) == 4 else None
    traits = traits_for(platform)
    threaded = traits is not None and traits.reply_placement == "thread"
    if threaded and traits is not None and traits.is_dm_channel(workspace, channel):
        thread = None  # where replies go in threads, DMs are still answered at the top level
    return {"platform": platform, "workspace": workspace, "channel": channel, "thread": thread}
