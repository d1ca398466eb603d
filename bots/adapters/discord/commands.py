"""App commands: one ``/<agent> text`` per agent plus ``/state text`` for admins.

Each command defers at once (Discord allows 3 seconds for the first response),
runs through the ChatService, and sends the reply as follow-ups of at most 2,000
characters.

Privacy is decided before the defer, because Discord ignores the ephemeral flag on
the first follow-up after a public defer (that follow-up edits the public
"thinking…" message). ``/state``, help, unknown tools and arguments that do not
parse are known to answer privately, so they are deferred ephemerally. A run that
was deferred publicly and still ends in a private reply (a tool refusing its
arguments) edits the public "thinking…" into a neutral note, sends the details as
an ephemeral second follow-up (which Discord honours), then deletes the note.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import discord
import structlog
from discord import app_commands

from bots.adapters.discord.board import BoardHost, card_view
from bots.adapters.discord.components import ApprovalHost, approval_view
from bots.adapters.discord.delivery import INTERRUPTED, RESTARTING
from bots.adapters.discord.embeds import card_embed
from bots.adapters.discord.files import media_batches
from bots.adapters.discord.parse import parse_interaction
from bots.adapters.discord.traits import MESSAGE_LIMIT
from bots.chat.admin_seam import BUILTIN_COMMANDS
from bots.chat.chunking import chunk_text
from bots.chat.commands import CommandError, parse_command
from bots.chat.errors import UNEXPECTED
from bots.chat.registry import tools_of
from bots.chat.replies import Reply
from bots.chat.undo import wants_undo
from bots.ops.drain import Drain

if TYPE_CHECKING:
    from bots.chat.service import ChatService

log = structlog.get_logger(__name__)

SORRY = UNEXPECTED  # the outcome is unknown, so the reply does not claim one
_COMMAND_NAME = re.compile(r"^[-_a-z0-9]{1,32}$")
NO_MENTIONS = discord.AllowedMentions.none()
PRIVATE_NOTE = "That could not be done; I sent you the details privately."
HELP_WORDS = ("help", "?", "-h", "--help")
BUILTIN_NAMES = frozenset(c.name for c in BUILTIN_COMMANDS)


async def safely(work: Awaitable[Reply | None], **context: Any) -> Reply | None:
    """Run the service; an unexpected error becomes a short apology, never silence."""
    try:
        return await work
    except Exception:
        log.exception("discord_handler_failed", platform="discord", **context)
        return Reply(SORRY)


def answers_privately(service: ChatService, command: str, text: str) -> bool:
    """Whether ``/<command> text`` is known, before running, to get an ephemeral reply.

    Mirrors what ChatService answers privately without running anything: ``/state``,
    unknown agents, help, and commands that do not parse. (Oversize text is refused
    privately too; it takes the public-defer path below, which keeps it private.)
    The built-in ``undo`` is deferred publicly: a done undo is news for the channel,
    and a refused one (conflict, nothing to undo) takes that same private path.
    """
    if command == "state":
        return True
    agent_id = service.agents.id_of(command)
    if agent_id is None:
        return True
    words = text.split(maxsplit=1)
    if not words or words[0].lower() in HELP_WORDS:
        return True
    tools, aliases = tools_of(service.agents[agent_id]), service.aliases(agent_id)
    if wants_undo(text, tools, aliases):  # a done undo is news for the whole channel
        return False
    try:
        parse_command(text, tools, aliases)
    except CommandError:
        return True
    return False


async def run_interaction(
    service: ChatService, interaction: discord.Interaction, command: str, text: str, drain: Drain
) -> None:
    """Defer (privately when the reply will be private), run, then follow up in chunks.

    Never raises: an interaction Discord no longer accepts is logged.
    """
    cmd = parse_interaction(interaction, command, text)
    ids = {"platform": "discord", "event_id": cmd.event_id, "command": command}
    try:
        if drain.closing:
            await interaction.response.send_message(
                RESTARTING, ephemeral=True, allowed_mentions=NO_MENTIONS
            )
            return
        with drain.track():
            private = answers_privately(service, command, cmd.text)
            await interaction.response.defer(ephemeral=private, thinking=True)
            log.info("discord_command", private=private, **ids)
            try:
                reply = await safely(service.handle_command(cmd), **ids)
            except asyncio.CancelledError:
                await follow_up(interaction, Reply(INTERRUPTED), deferred_private=private)
                raise
            await follow_up(interaction, reply or Reply(SORRY), deferred_private=private)
    except discord.HTTPException as exc:
        log.error(
            "discord_interaction_failed", status=exc.status, code=exc.code, error=exc.text, **ids
        )


async def follow_up(
    interaction: discord.Interaction, reply: Reply, *, deferred_private: bool
) -> None:
    """Send ``reply`` after a defer, keeping a private reply private after a public defer.

    A reply with a card that fits is one embed (``bots.adapters.discord.embeds``); else the text.

    A paused run's question goes with its Approve / Reject buttons
    (``bots.adapters.discord.components``); the click is handled by whichever process gets it.
    """
    if reply.approval is not None:
        client: ApprovalHost = interaction.client  # type: ignore[assignment]
        token = await client.approvals.put(reply.approval)
        await interaction.followup.send(
            reply.text[:MESSAGE_LIMIT],
            view=approval_view(token, reply.approval.labels),
            ephemeral=deferred_private,
            allowed_mentions=NO_MENTIONS,
        )
        return
    embed = card_embed(reply.card) if reply.card is not None else None
    view = None
    if embed is not None and reply.card is not None and not reply.ephemeral:
        bot: BoardHost = interaction.client  # type: ignore[assignment]
        view = await card_view(bot.buttons, reply.card)
    messages: list[dict[str, Any]] = (
        [{"embed": embed, **({"view": view} if view is not None else {})}]
        if embed is not None
        else [{"content": part} for part in chunk_text(reply.text, MESSAGE_LIMIT) or ["Done."]]
    )
    if reply.ephemeral and not deferred_private:
        # the first follow-up would edit the public "thinking…" and stay public
        await interaction.edit_original_response(content=PRIVATE_NOTE)
        for message in messages:
            await interaction.followup.send(**message, ephemeral=True, allowed_mentions=NO_MENTIONS)
        await interaction.delete_original_response()
        return
    for message in messages:
        await interaction.followup.send(
            **message, ephemeral=deferred_private, allowed_mentions=NO_MENTIONS
        )
    for batch in media_batches(reply.media):  # a tool's images and files, after the text
        await interaction.followup.send(files=batch, ephemeral=deferred_private)


def _command(
    service: ChatService, name: str, description: str, drain: Drain
) -> app_commands.Command[Any, ..., None]:
    @app_commands.describe(text="what to do, e.g. `add_task milk` or `help`")
    async def callback(interaction: discord.Interaction, text: str = "") -> None:
        await run_interaction(service, interaction, name, text, drain)

    return app_commands.Command(name=name, description=description[:100] or name, callback=callback)


def add_commands(tree: app_commands.CommandTree[Any], service: ChatService, drain: Drain) -> None:
    """Register one command per agent and ``/state`` on ``tree``.

    Discord accepts 1-32 lower-case ``a-z0-9_-`` names; an agent id that cannot be
    one is skipped with a warning (it still answers mentions).
    """
    for agent_id, agent in service.agents.items():
        name = agent_id.lower()
        if not _COMMAND_NAME.match(name) or name in BUILTIN_NAMES:
            log.warning("discord_command_name_invalid", platform="discord", agent=agent_id)
            continue
        description = getattr(agent, "description", None) or f"Ask the {agent_id} agent"
        tree.add_command(_command(service, name, str(description), drain))
    for builtin in BUILTIN_COMMANDS:  # /state, /memory, /connect
        tree.add_command(_command(service, builtin.name, builtin.description, drain))
