"""Where a run came from: the run-metadata keys a chat adapter fills in.

Core code never parses platform payloads; the chat layer puts what it knows about the
message that asked for a run into the run's ``metadata`` under these keys, and core
reads them back (audit records, budgets). A run without them (a library call, a test)
is simply not attributed to a platform, event or channel.
"""

from __future__ import annotations

from collections.abc import Mapping

#: the chat platform of the message ("slack", "discord", "console")
PLATFORM_KEY = "statebot.platform"
#: the platform's id of the message or event (Slack event id / ts, Discord message id)
EVENT_KEY = "statebot.event_id"
#: the channel the message was posted in, as a stable key (budgets per channel)
CHANNEL_KEY = "statebot.channel"


def origin_value(metadata: Mapping[str, object] | None, key: str) -> str | None:
    """The text under ``key`` in a run's metadata, or None when absent or not text."""
    value = (metadata or {}).get(key)
    return value if isinstance(value, str) and value else None
