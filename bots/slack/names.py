"""Slack's side of :mod:`bots.names`: display names from ``users.info``, ``conversations.info``."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient


class SlackNames:
    """A NameSource over the Web API (one bot token serves one workspace)."""

    __slots__ = ("_client",)

    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The profile's display name, else the real name, else the handle."""
        resp = await self._client.users_info(user=user)
        info = resp.get("user") or {}
        profile = info.get("profile") or {}
        for name in (profile.get("display_name"), profile.get("real_name"), info.get("name")):
            if name:
                return str(name)
        return None

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The channel's name (DMs have none)."""
        resp = await self._client.conversations_info(channel=channel)
        name = (resp.get("channel") or {}).get("name")
        return str(name) if name else None
