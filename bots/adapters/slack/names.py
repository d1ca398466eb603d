"""Slack's side of :mod:`bots.chat.names`: display names from ``users.info`` and
``conversations.info``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

#: the Web API client holding a workspace's bot token (None: the app is not installed there)
ClientFor = Callable[[str], Awaitable[AsyncWebClient | None]]


def one_client(client: AsyncWebClient) -> ClientFor:
    """One bot token for every workspace (``SLACK_BOT_TOKEN``)."""

    async def client_for(_workspace: str) -> AsyncWebClient:
        return client

    return client_for


class SlackNames:
    """A NameSource over the Web API, asking each workspace with its own bot token."""

    __slots__ = ("_client_for", "_zones")

    #: profiles whose timezone is kept from a name lookup (one users.info call serves both)
    MAX_ZONES = 10_000

    def __init__(self, client: AsyncWebClient | ClientFor) -> None:
        self._client_for = one_client(client) if isinstance(client, AsyncWebClient) else client
        self._zones: OrderedDict[tuple[str, str], str | None] = OrderedDict()

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The profile's display name, else the real name, else the handle."""
        client = await self._client_for(workspace)
        if client is None:
            return None
        resp = await client.users_info(user=user)
        info = resp.get("user") or {}
        self._keep_zone(workspace, user, info)
        profile = info.get("profile") or {}
        for name in (profile.get("display_name"), profile.get("real_name"), info.get("name")):
            if name:
                return str(name)
        return None

    async def user_tz(self, workspace: str, user: str) -> str | None:
        """The user's IANA timezone from the profile (``tz``), or None."""
        if (workspace, user) in self._zones:  # the name lookup just read the profile
            return self._zones.pop((workspace, user))
        client = await self._client_for(workspace)
        if client is None:
            return None
        resp = await client.users_info(user=user)
        zone = (resp.get("user") or {}).get("tz")
        return str(zone) if zone else None

    def _keep_zone(self, workspace: str, user: str, info: Mapping[str, Any]) -> None:
        zone = info.get("tz")
        self._zones[(workspace, user)] = str(zone) if zone else None
        while len(self._zones) > self.MAX_ZONES:
            self._zones.popitem(last=False)

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The channel's name (DMs have none)."""
        client = await self._client_for(workspace)
        if client is None:
            return None
        resp = await client.conversations_info(channel=channel)
        name = (resp.get("channel") or {}).get("name")
        return str(name) if name else None
