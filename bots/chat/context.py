"""What a run learns of its chat context: display names, the user's timezone, and where
it came from (platform, event id, channel: audit records and budgets).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bots.chat.catch_up import CatchUp
from bots.chat.names import NameCache, NameSource, authored, render_mentions
from bots.chat.targets import target_of
from bots.chat.timezones import TimezoneCache, TimezoneSource
from bots.inbound import InboundMessage, SlashCommand
from bots.keys import channel_key, channel_of_session
from core.run.origin import CHANNEL_KEY, EVENT_KEY, PLATFORM_KEY
from core.schedule import TARGET_KEY, USER_TZ_KEY, Schedule

__all__ = ["ChatContext", "origin", "scheduled_origin"]


class ChatContext:
    """Per-platform name (and timezone) sources, and the metadata each run carries."""

    __slots__ = ("_names",)

    def __init__(self) -> None:
        self._names: dict[str, NameCache] = {}

    def use_names(self, platform: str, source: NameSource) -> None:
        """Resolve display names (and timezones, when it knows them) through ``source``."""
        if isinstance(source, TimezoneSource):
            self._names[platform] = TimezoneCache(source, source)
        else:
            self._names[platform] = NameCache(source)

    async def run_metadata(self, event: InboundMessage | SlashCommand) -> dict[str, Any]:
        """What a run learns of its chat context: where replies go, the user's timezone,
        and where it came from (platform, event id, channel: audit records and budgets).
        """
        metadata: dict[str, Any] = {TARGET_KEY: target_of(event)}
        metadata |= origin(
            event.platform,
            event.event_id,
            channel_key(event.platform, event.workspace, event.channel),
        )
        return metadata | await self.user_tz(event.platform, event.workspace, event.user)

    async def user_tz(self, platform: str, workspace: str, user: str) -> dict[str, Any]:
        """``{USER_TZ_KEY: zone}`` when the platform tells the user's timezone, else ``{}``."""
        names = self._names.get(platform)
        if isinstance(names, TimezoneCache):
            zone = await names.user_tz(workspace, user)
            if zone:
                return {USER_TZ_KEY: zone}
        return {}

    async def earlier(self, catch_up: CatchUp) -> str | None:
        """A thread's earlier messages as the model reads them (``bots.chat.catch_up``)."""
        return await catch_up.text(self._names.get(catch_up.platform))

    async def readable(self, msg: InboundMessage, text: str) -> str:
        """The question as the model reads it: ``Ana: ask @Bo in #general``."""
        names = self._names.get(msg.platform)
        text = await render_mentions(
            text, platform=msg.platform, workspace=msg.workspace, names=names
        )
        author = await names.user_name(msg.workspace, msg.user) if names is not None else None
        return authored(author, text)


def origin(platform: str, event_id: str, channel: str | None) -> dict[str, Any]:
    """The run-metadata keys naming where a run came from; empty values are left out."""
    found = {PLATFORM_KEY: platform, EVENT_KEY: event_id, CHANNEL_KEY: channel}
    return {key: value for key, value in found.items() if value}


def scheduled_origin(schedule: Schedule, target: Mapping[str, Any]) -> dict[str, Any]:
    """A scheduled run's origin: the platform and channel it posts to, the schedule as event."""
    platform, workspace = str(target.get("platform") or ""), str(target.get("workspace") or "")
    channel = target.get("channel")
    key = (
        channel_key(platform, workspace, str(channel))
        if platform and workspace and channel
        else channel_of_session(schedule.session_id)
    )
    return origin(platform, f"schedule:{schedule.schedule_id}", key)
