"""``statebot discord``: run the Discord bot on the gateway (needs DISCORD_TOKEN)."""

from __future__ import annotations

import asyncio

import click

from bots.app import build_app
from bots.logging import configure_logging
from bots.settings import Settings


async def serve(settings: Settings) -> None:
    """Log in, publish the app commands and answer until cancelled."""
    if settings.discord_token is None:
        raise click.UsageError("DISCORD_TOKEN is not set; see docs/chat-setup.md")
    # imported here: discord.py pulls in the deprecated stdlib audioop, and every
    # other subcommand (and its tests) should not pay for or warn about that
    from bots.discord.client import StatebotDiscord

    client = StatebotDiscord(build_app(settings).service)
    async with client:
        # discord.py would install its own log handler; structlog already owns logging
        await client.start(settings.discord_token.get_secret_value())


@click.command("discord")
def discord_command() -> None:
    """Run the Discord bot (mentions, threads, DMs and app commands)."""
    settings = Settings()
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    asyncio.run(serve(settings))
