"""Discord names for the web console, over the REST API with ``DISCORD_TOKEN``.

The console has no gateway connection (so no member cache, unlike
:mod:`bots.adapters.discord.names`): it logs in over HTTP on the first lookup and
asks for the member (a server nickname wins), the user, or the channel. The console's
cache (bots/web/names.py) keeps the answers; guilds are kept here, as a member is
fetched through its guild.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

import discord

from bots.adapters.discord.traits import TRAITS
from bots.web.names import OfferedNames

__all__ = ["DiscordRestNames", "names_for"]


class DiscordRestNames:
    """A NameSource over Discord's REST API, logged in on first use."""

    __slots__ = ("_client", "_guilds", "_lock", "_token")

    #: guilds kept to fetch their members through
    MAX_GUILDS = 1_000

    def __init__(self, token: str) -> None:
        self._token = token
        self._client: discord.Client | None = None
        self._lock: asyncio.Lock | None = None
        self._guilds: OrderedDict[int, discord.Guild] = OrderedDict()

    async def user_name(self, workspace: str, user: str) -> str | None:
        """The member's server nickname or display name; outside a server, the user's."""
        client = await self._logged_in()
        if workspace.isdigit():
            guild = await self._guild(client, int(workspace))
            try:
                return (await guild.fetch_member(int(user))).display_name
            except discord.NotFound:  # not (or no longer) a member: the user's own name
                pass
        return (await client.fetch_user(int(user))).display_name

    async def channel_name(self, workspace: str, channel: str) -> str | None:
        """The channel's (or thread's) name; a DM has none."""
        client = await self._logged_in()
        found = await client.fetch_channel(int(channel))
        name = getattr(found, "name", None)
        return str(name) if name else None

    async def aclose(self) -> None:
        """Close the HTTP session."""
        if self._client is not None:
            await self._client.close()

    async def _logged_in(self) -> discord.Client:
        if self._lock is None:  # made in the serving loop
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._client is None:
                client = discord.Client(intents=discord.Intents.none())
                await client.login(self._token)  # HTTP only: no gateway connection
                self._client = client
        return self._client

    async def _guild(self, client: discord.Client, guild_id: int) -> discord.Guild:
        guild = self._guilds.get(guild_id)
        if guild is None:
            guild = await client.fetch_guild(guild_id, with_counts=False)
            self._guilds[guild_id] = guild
            while len(self._guilds) > self.MAX_GUILDS:
                self._guilds.popitem(last=False)
        return guild


def names_for(token: str) -> OfferedNames:
    """Discord names for ``statebot web`` with the bot token ``token``."""
    source = DiscordRestNames(token)
    return OfferedNames(TRAITS.name, source, close=source.aclose)
