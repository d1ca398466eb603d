"""Teams' side of :mod:`bots.chat.names`: names learned from the activities themselves.

Every activity carries its sender's display name (``from.name``), its mentions'
names and, in a channel, the channel's; they are kept here (bounded) so the model
reads ``Ana`` and a reply's mention shows her name, without a Graph permission.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from bots.adapters.teams.parse import user_of

MAX_NAMES = 10_000


class TeamsNames:
    """A NameSource over the names the activities carried."""

    __slots__ = ("_channels", "known")

    def __init__(self) -> None:
        self.known: OrderedDict[str, str] = OrderedDict()
        self._channels: OrderedDict[str, str] = OrderedDict()

    def _keep(self, table: OrderedDict[str, str], key: str, name: Any) -> None:
        if key and isinstance(name, str) and name.strip():
            table[key] = name.strip()
            table.move_to_end(key)
            while len(table) > MAX_NAMES:
                table.popitem(last=False)

    def learn(self, activity: Mapping[str, Any]) -> None:
        """Remember the names ``activity`` carries."""
        sender = activity.get("from")
        if isinstance(sender, Mapping):
            self._keep(self.known, user_of(sender), sender.get("name"))
        for entity in activity.get("entities") or ():
            who = entity.get("mentioned") if isinstance(entity, Mapping) else None
            if isinstance(who, Mapping):
                self._keep(self.known, user_of(who), who.get("name"))
        data = activity.get("channelData")
        channel = data.get("channel") if isinstance(data, Mapping) else None
        if isinstance(channel, Mapping):
            self._keep(self._channels, str(channel.get("id") or ""), channel.get("name"))

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The display name the user's last activity or mention carried."""
        return self.known.get(user)

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The channel's name, once an activity in it named it."""
        return self._channels.get(channel)
