"""The gateway client: answers mentions, threads and DMs; owns the app-command tree."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
import structlog
from discord import app_commands

from bots.adapters.discord.board import CardButton, CardMenu
from bots.adapters.discord.commands import NO_MENTIONS, add_commands
from bots.adapters.discord.components import ApprovalButton, ApprovalStore, MemoryApprovals
from bots.adapters.discord.delivery import answer_message
from bots.adapters.discord.names import DiscordNames
from bots.adapters.discord.parse import parse_message
from bots.adapters.discord.scheduled import discord_delivery
from bots.chat.button_store import ButtonStore, MemoryButtons
from bots.chat.streaming import StreamOptions
from bots.ops.drain import Drain
from bots.ops.flags import Flags, MemoryFlags

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)


def default_intents() -> discord.Intents:
    """Guilds, guild and DM messages, and message content (a privileged intent)."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.dm_messages = True
    intents.message_content = True
    return intents


class StatebotDiscord(discord.Client):
    """A discord.py client routing addressed messages and app commands to the service.

    ``flags`` de-duplicates deliveries across processes (``RedisFlags`` when several
    processes share a token); ``approvals`` keeps Approve / Reject questions for any
    process to answer (``RedisApprovals`` likewise), and ``buttons`` what each board
    button runs (``RedisButtons`` likewise); ``shutdown(grace)`` drains work in
    flight, then closes.
    """

    def __init__(
        self,
        service: ChatService,
        *,
        flags: Flags | None = None,
        approvals: ApprovalStore | None = None,
        buttons: ButtonStore | None = None,
        intents: discord.Intents | None = None,
        sync_commands: bool = True,
    ) -> None:
        # never let a reply ping @everyone or anyone else, whatever the agent writes
        super().__init__(intents=intents or default_intents(), allowed_mentions=NO_MENTIONS)
        self.service = service
        self.flags: Flags = flags or MemoryFlags()
        self.drain = Drain()
        self.stream = StreamOptions.from_settings(service.settings)  # tests swap the clock
        # Approve / Reject clicks are handled by whichever process receives them
        self.approvals: ApprovalStore = approvals or MemoryApprovals()
        self.add_dynamic_items(ApprovalButton)
        # board buttons (done, delete, add …) likewise, from any process
        self.buttons: ButtonStore = buttons or MemoryButtons()
        self.add_dynamic_items(CardButton, CardMenu)
        self.tree: app_commands.CommandTree[StatebotDiscord] = app_commands.CommandTree(self)
        self._sync_commands = sync_commands
        add_commands(self.tree, service, self.drain)
        service.use_names("discord", DiscordNames(self))  # the model reads names, not ids
        # scheduled runs (reminders) of Discord sessions post through this client
        service.deliveries.register("discord", discord_delivery(self))

    async def setup_hook(self) -> None:
        """Publish the app commands once logged in."""
        if self._sync_commands:
            synced = await self.tree.sync()
            log.info("discord_commands_synced", platform="discord", count=len(synced))

    async def on_message(self, message: discord.Message) -> None:
        """Answer a message addressed to the bot in the channel (or thread) it came from."""
        if self.user is None:
            return
        msg = parse_message(message, self.user.id)
        if msg is None:
            return
        await answer_message(
            message,
            msg,
            service=self.service,
            flags=self.flags,
            drain=self.drain,
            stream=self.stream,
            approvals=self.approvals,
            bot_id=self.user.id,
        )

    async def shutdown(self, grace: float) -> bool:
        """Turn new events away, let runs in flight finish within ``grace`` s, then close.

        True when every run finished; False when some were cancelled (their users
        were told the run was interrupted).
        """
        log.info("discord_shutdown", platform="discord", in_flight=self.drain.in_flight)
        finished = await self.drain.shutdown(grace)
        await self.close()
        return finished
