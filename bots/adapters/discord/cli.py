"""``statebot discord``: run the Discord bot on the gateway (needs DISCORD_TOKEN).

SIGTERM or SIGINT stops it gracefully: new messages and commands are told to resend,
runs in flight get ``STATEBOT_SHUTDOWN_GRACE`` seconds to reply, then the client
closes and the process exits 0.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import click
import structlog

from bots.adapters.discord.settings import DiscordSettings
from bots.app.build import AgentSource, build_app
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent
from bots.ops.drain import on_stop_signal
from bots.ops.flags import flags_for
from bots.ops.health import serving, store_probe
from bots.ops.logging import configure_logging
from bots.ops.startup import check_stores, run_process
from bots.settings import Settings

log = structlog.get_logger(__name__)


async def serve(
    settings: Settings, discord_settings: DiscordSettings, *, agents: AgentSource | None = None
) -> None:
    """Log in, publish the app commands and answer until a stop signal or cancellation."""
    token = discord_settings.discord_token
    if token is None:
        raise click.UsageError("DISCORD_TOKEN is not set; see docs/chat-setup.md")
    # imported here: discord.py pulls in the deprecated stdlib audioop, and every
    # other subcommand (and its tests) should not pay for or warn about that
    from bots.adapters.discord.client import StatebotDiscord

    app = build_app(settings, agents=agents)
    flags = flags_for(settings)
    from bots.adapters.discord.components import approvals_for

    approvals = approvals_for(settings)  # Approve / Reject clicks work in any process
    from bots.chat.button_store import buttons_for

    buttons = buttons_for(settings)  # board buttons too
    client = StatebotDiscord(app.service, flags=flags, approvals=approvals, buttons=buttons)
    stopping: list[asyncio.Task[bool]] = []

    def stop(_signal: str) -> None:
        stopping.append(asyncio.create_task(client.shutdown(settings.statebot_shutdown_grace)))

    try:
        await check_stores(app.db)  # a store down at start: one line, not a traceback
        health = serving(settings.statebot_health_port, store_probe(app.db))
        with on_stop_signal(stop):
            async with health, client:
                # discord.py would install its own log handler; structlog owns logging
                await client.start(token.get_secret_value())
            if stopping:
                finished = await stopping[0]
                log.info("discord_stopped", platform="discord", drained=finished)
    finally:
        if app.scheduler is not None:
            await app.scheduler.stop()  # the run it is firing finishes first
        if app.mcp is not None:
            await app.mcp.aclose()
        await flags.aclose()
        await approvals.aclose()
        await buttons.aclose()
        await app.db.aclose()


@click.command("discord", context_settings=HELP_OPTIONS)
@app_option
def discord_command(agents: Mapping[str, ChatAgent] | None) -> None:
    """Run the Discord bot (mentions, threads, DMs and app commands)."""
    settings = Settings()
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    run_process(serve(settings, DiscordSettings(), agents=agents), name="discord")
