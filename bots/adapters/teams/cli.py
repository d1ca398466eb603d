"""``statebot teams``: serve the Teams messaging endpoint (needs TEAMS_APP_ID and a
secret or certificate; docs/chat-setup.md).

SIGTERM or SIGINT stops it gracefully: new activities are told to resend, answers
in flight get ``STATEBOT_SHUTDOWN_GRACE`` seconds to be posted, then the endpoint
closes, the scheduler stops, the store closes, and the process exits 0.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Mapping

import click
import structlog
from aiohttp.web import NotAppKeyWarning

from bots.adapters.teams.settings import TeamsSettings
from bots.app.build import AgentSource, build_app
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent
from bots.ops.drain import on_stop_signal
from bots.ops.flags import flags_for
from bots.ops.health import store_probe
from bots.ops.logging import configure_logging
from bots.ops.startup import check_stores, run_process
from bots.settings import Settings

log = structlog.get_logger(__name__)


async def serve(
    settings: Settings,
    teams: TeamsSettings,
    *,
    agents: AgentSource | None = None,
    tokens: object | None = None,
    started: asyncio.Future[int] | None = None,
) -> None:
    """Answer on the endpoint until a stop signal, then drain and close.

    ``tokens``: where outgoing tokens come from (default: MSAL with the app's secret
    or certificate); ``started`` learns the bound port once the endpoint listens.
    """
    # imported here: the SDK is loaded only by the process that serves Teams
    from bots.adapters.teams.server import (
        Endpoint,
        TokenProviders,
        assemble,
        auth_configuration,
        msal_tokens,
    )

    auth_configuration(teams)  # a missing app id or secret: one line, before anything starts
    # the SDK keeps its request data under plain string keys, which aiohttp warns about
    # on the first request: a library's choice, not something an operator can act on
    warnings.filterwarnings("ignore", category=NotAppKeyWarning, module=r"microsoft_agents\.")
    provider: TokenProviders = tokens if callable(tokens) else msal_tokens
    app = build_app(settings, agents=agents)
    flags = flags_for(settings)
    stop = asyncio.Event()
    try:
        await check_stores(app.db)  # a store down at start: one line, not a traceback
        bot, web = assemble(
            app.service, teams, tokens=provider, flags=flags, probe=store_probe(app.db)
        )
        with on_stop_signal(lambda _signal: stop.set()):
            async with Endpoint(web, port=teams.teams_port) as endpoint:
                if started is not None:
                    started.set_result(endpoint.port)
                await stop.wait()
                finished = await bot.shutdown(settings.statebot_shutdown_grace)
                log.info("teams_stopped", platform="teams", drained=finished)
    finally:
        if app.scheduler is not None:
            await app.scheduler.stop()  # the run it is firing finishes first
        if app.mcp is not None:
            await app.mcp.aclose()
        await flags.aclose()
        await app.db.aclose()


@click.command("teams", context_settings=HELP_OPTIONS)
@app_option
def teams_command(agents: Mapping[str, ChatAgent] | None) -> None:
    """Run the Microsoft Teams bot (channel threads, group chats, personal chats)."""
    settings = Settings()
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    run_process(serve(settings, TeamsSettings(), agents=agents), name="teams")
