"""Discord's side of :mod:`bots.chat.names`: the member's display name, the channel's name."""

from __future__ import annotations

import discord


class DiscordNames:
    """A NameSource over the gateway cache, fetching a user the cache does not hold."""

    __slots__ = ("_client",)

    def __init__(self, client: discord.Client) -> None:
        self._client = client

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The member's server nickname or display name; outside a server, the user's."""
        guild = self._client.get_guild(int(workspace)) if workspace.isdigit() else None
        member = guild.get_member(int(user)) if guild is not None else None
        if member is not None:
            return member.display_name
        found = self._client.get_user(int(user)) or await self._client.fetch_user(int(user))
        return found.display_name

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The channel's name, when the client can see it."""
        found = self._client.get_channel(int(channel))
        name = getattr(found, "name", None)
        return str(name) if name else None
