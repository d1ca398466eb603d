"""App commands: one ``/<agent> text`` per agent plus ``/state text`` for admins.

Each command defers at once (Discord allows 3 seconds for the first response),
runs through the ChatService, and sends the reply as follow-ups of at most 2,000
characters. ``/state`` is deferred ephemerally, so even its "thinking…" stays private.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import discord
import structlog
from discord import app_commands

from bots.chunking import DISCORD_LIMIT, chunk_text
from bots.discord.parse import parse_interaction
from bots.errors import UNEXPECTED
from bots.replies import Reply

if TYPE_CHECKING:
    from bots.service import ChatService

log = structlog.get_logger(__name__)

SORRY = UNEXPECTED  # the outcome is unknown, so the reply does not claim one
_COMMAND_NAME = re.compile(r"^[-_a-z0-9]{1,32}$")
NO_MENTIONS = discord.AllowedMentions.none()


async def safely(work: Awaitable[Reply | None], **context: Any) -> Reply | None:
    """Run the service; an unexpected error becomes a short apology, never silence."""
    try:
        return await work
    except Exception:
        log.exception("discord_handler_failed", platform="discord", **context)
        return Reply(SORRY)


async def run_interaction(
    service: ChatService, interaction: discord.Interaction, command: str, text: str
) -> None:
    """Defer, run ``/<command> text``, then follow up with the reply in chunks."""
    private = command == "state"
    await interaction.response.defer(ephemeral=private, thinking=True)
    cmd = parse_interaction(interaction, command, text)
    log.info("discord_command", platform="discord", event_id=cmd.event_id, command=command)
    reply = await safely(service.handle_command(cmd), event_id=cmd.event_id)
    reply = reply or Reply(SORRY, ephemeral=True)
    for part in chunk_text(reply.text, DISCORD_LIMIT) or ["Done."]:
        await interaction.followup.send(
            part, ephemeral=private or reply.ephemeral, allowed_mentions=NO_MENTIONS
        )


def _command(
    service: ChatService, name: str, description: str
) -> app_commands.Command[Any, ..., None]:
    async def callback(interaction: discord.Interaction, text: str = "") -> None:
        await run_interaction(service, interaction, name, text)

    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name=name, description=description[:100] or name, callback=callback
    )
    command._params["text"].description = "what to do, e.g. `add_task milk` or `help`"
    return command


def add_commands(tree: app_commands.CommandTree[Any], service: ChatService) -> None:
    """Register one command per agent and ``/state`` on ``tree``.

    Discord accepts 1-32 lower-case ``a-z0-9_-`` names; an agent id that cannot be
    one is skipped with a warning (it still answers mentions).
    """
    for agent_id, agent in service.agents.items():
        name = agent_id.lower()
        if not _COMMAND_NAME.match(name) or name == "state":
            log.warning("discord_command_name_invalid", platform="discord", agent=agent_id)
            continue
        description = getattr(agent, "description", None) or f"Ask the {agent_id} agent"
        tree.add_command(_command(service, name, str(description)))
    tree.add_command(_command(service, "state", "Admins: state dump | reset | history"))
