"""``statebot web``: serve the admin console; ``--create-admin ID`` prints a sign-in token.

The console offers signing in with every registered platform whose adapter offers it
(:class:`bots.adapters.base.OffersWebSignIn`), besides one-time admin tokens, and
shows the user and channel names of every platform whose adapter can look them up
(:class:`bots.adapters.base.OffersWebNames`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

import click
from aiohttp import web

from bots.adapters import registry
from bots.adapters.base import OffersWebNames, OffersWebSignIn
from bots.admin.policy import grant_of_admin_id
from bots.admins import check_admin_id
from bots.app.cli_format import HELP_OPTIONS
from bots.ops.logging import configure_logging
from bots.settings import Settings
from bots.web.app import create_app
from bots.web.config import WebConfig, WebConfigError
from bots.web.names import OfferedNames
from bots.web.sign_in import SignInProvider
from bots.web.tokens import TOKEN_SECONDS, AdminTokens
from core.db.base import BaseDb
from core.utils.log import log_info


async def serve(db: BaseDb, config: WebConfig, host: str, port: int) -> None:
    """Serve the console until SIGTERM/SIGINT, then close the store."""
    runner = web.AppRunner(create_app(db, config))
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        log_info("web console started", url=f"http://{host}:{port}/")
        await stop.wait()
    finally:
        await runner.cleanup()
        with contextlib.suppress(Exception):
            await db.aclose()


def sign_in_providers(settings: Settings) -> tuple[SignInProvider, ...]:
    """The platforms admins may sign in with, as their adapters configure them;
    WebConfigError when one is configured by halves."""
    offered = (
        adapter.web_sign_in(settings)
        for adapter in registry.adapters()
        if isinstance(adapter, OffersWebSignIn)
    )
    return tuple(provider for provider in offered if provider is not None)


def name_sources(settings: Settings) -> tuple[OfferedNames, ...]:
    """The platforms whose user and channel names the console can ask for, with the
    tokens their adapters find in the settings; WebConfigError when one is half-set."""
    offered = (
        adapter.web_names(settings)
        for adapter in registry.adapters()
        if isinstance(adapter, OffersWebNames)
    )
    return tuple(names for names in offered if names is not None)


def create_admin_token(settings: Settings, admin_id: str) -> str:
    """A one-time token for a configured admin id; ClickException otherwise."""
    try:
        canonical = check_admin_id(admin_id)
    except ValueError as exc:
        raise click.ClickException(str(exc).replace("STATEBOT_ADMIN_IDS: ", "")) from None
    if grant_of_admin_id(canonical, settings.statebot_admin_ids) is None:  # the policy's rule
        raise click.ClickException(
            f"{canonical!r} is not in STATEBOT_ADMIN_IDS; add it there first (the console "
            "admits the same admins as /state)"
        )
    return AdminTokens(Path(settings.statebot_web_tokens_file)).create(canonical)


@click.command("web", context_settings=HELP_OPTIONS)
@click.option(
    "--create-admin",
    metavar="ADMIN_ID",
    default=None,
    help="Print a one-time sign-in token for this STATEBOT_ADMIN_IDS entry and exit.",
)
@click.option("--host", default=None, help="Address to listen on [env STATEBOT_WEB_HOST].")
@click.option("--port", type=int, default=None, help="Port [env STATEBOT_WEB_PORT].")
def web_command(create_admin: str | None, host: str | None, port: int | None) -> None:
    """Serve the web admin console (sessions, versions, actions, operations)."""
    settings = Settings()
    if create_admin is not None:
        token = create_admin_token(settings, create_admin)
        hours = TOKEN_SECONDS // 3600
        click.echo(
            f"One-time sign-in token for {check_admin_id(create_admin)} "
            f"(works once, within {hours} hours):"
        )
        click.echo(token)
        return
    try:
        config = WebConfig.from_settings(
            settings, sign_in_providers(settings), name_sources(settings)
        )
    except WebConfigError as exc:
        raise click.ClickException(str(exc)) from None
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    from bots.app.build import build_store

    db = build_store(settings)
    asyncio.run(
        serve(
            db,
            config,
            host or settings.statebot_web_host,
            settings.statebot_web_port if port is None else port,
        )
    )
