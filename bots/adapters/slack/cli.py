"""``statebot slack [--socket] [--port N]``: run the Slack bot.

HTTP mode serves ``POST /slack/events`` (events and slash commands) on ``--port``
(default ``PORT``) and needs SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET. Socket Mode
(``--socket``) needs SLACK_BOT_TOKEN and SLACK_APP_TOKEN and no public URL. With
SLACK_CLIENT_ID and SLACK_CLIENT_SECRET instead of SLACK_BOT_TOKEN, HTTP mode serves
Slack's install flow and every workspace that installs the app (``bots.adapters.slack.oauth``);
``--reencrypt`` re-encrypts the stored installations under the newest key and exits.

SIGTERM or SIGINT shuts down gracefully: no new events are taken (HTTP answers 503,
Socket Mode disconnects, so Slack redelivers elsewhere or later), runs in flight get
``STATEBOT_SHUTDOWN_GRACE`` seconds to finish and post their replies, reactions are
removed, and the process exits 0.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Mapping
from typing import cast

import click
import structlog
from aiohttp import web

from bots.adapters.slack.oauth import OAuthConfigError, SlackOAuth, build_oauth, oauth_configured
from bots.adapters.slack.options import SlackOptions
from bots.adapters.slack.send import web_client
from bots.adapters.slack.server import SlackHttpServer, build_slack_app, socket_mode_handler
from bots.adapters.slack.settings import SlackSettings
from bots.adapters.slack.shutdown import Shutdown
from bots.adapters.slack.sign_in import sign_in_for
from bots.adapters.slack.web_names import names_of_bot
from bots.app.build import AgentSource, build_app
from bots.app.cli_format import HELP_OPTIONS
from bots.app.option import app_option
from bots.chat.registry import ChatAgent
from bots.ops.flags import Flags, MemoryFlags, RedisFlags
from bots.ops.health import serving, store_probe
from bots.ops.logging import configure_logging
from bots.ops.startup import check_stores, run_process
from bots.settings import Settings
from bots.web import WebConfigError, console_mounts
from core.db.base import BaseDb

log = structlog.get_logger(__name__)


def _require(value: object, name: str) -> str:
    if value is None:
        raise click.UsageError(f"{name} is not set; see docs/chat-setup.md")
    secret = getattr(value, "get_secret_value", None)
    return str(secret() if secret else value)


def flags_for(settings: Settings) -> Flags:
    """Redis-backed flags when REDIS_URL is set (many processes), else in memory."""
    if settings.redis_url:
        return RedisFlags.from_url(settings.redis_url)
    return MemoryFlags()


def stop_signal() -> asyncio.Event:
    """An event set by the first SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return stop


def oauth_for(settings: Settings, slack: SlackSettings, *, socket: bool) -> SlackOAuth | None:
    """The install flow when configured (HTTP mode only), else None; UsageError if half-set."""
    if not oauth_configured(slack):
        return None
    if socket:
        raise click.UsageError(
            "the Slack install flow (SLACK_CLIENT_ID) runs in HTTP mode: drop --socket, or "
            "unset SLACK_CLIENT_ID/SLACK_CLIENT_SECRET to use one SLACK_BOT_TOKEN"
        )
    if slack.slack_bot_token is not None:
        raise click.UsageError(
            "set either SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID and "
            "SLACK_CLIENT_SECRET (the install flow, every workspace), not both"
        )
    try:
        return build_oauth(slack, settings.statebot_db_url)
    except OAuthConfigError as exc:
        raise click.UsageError(f"{exc}; see docs/chat-setup.md") from exc


def admin_console(
    settings: Settings, slack: SlackSettings, db: BaseDb, oauth: SlackOAuth | None = None
) -> dict[str, web.Application]:
    """The web console HTTP mode mounts (when STATEBOT_WEB_SECRET is set), offering Sign
    in with Slack when configured and showing names through the bot's own tokens;
    WebConfigError when its settings are incomplete."""
    if settings.statebot_web_secret is None:
        return {}
    sign_in = sign_in_for(settings, slack)
    names = names_of_bot(slack, oauth)
    return console_mounts(
        settings,
        db,
        sign_in=() if sign_in is None else (sign_in,),
        names=() if names is None else (names,),
    )


async def reencrypt_installations(settings: Settings, slack: SlackSettings) -> int:
    """Re-encrypt every stored installation under the newest key; how many rows."""
    oauth = oauth_for(settings, slack, socket=False)
    if oauth is None:
        raise click.UsageError("--reencrypt needs SLACK_CLIENT_ID and SLACK_CLIENT_SECRET")
    try:
        return await oauth.installations.reencrypt_all()
    finally:
        await oauth.aclose()


async def serve(
    settings: Settings,
    slack: SlackSettings,
    *,
    socket: bool,
    port: int,
    agents: AgentSource | None = None,
) -> None:
    """Build everything and run until SIGTERM/SIGINT, then drain and stop."""
    oauth = oauth_for(settings, slack, socket=socket)
    token = None if oauth else _require(slack.slack_bot_token, "SLACK_BOT_TOKEN")
    if socket:
        app_token = _require(slack.slack_app_token, "SLACK_APP_TOKEN")
        secret = None
    else:
        secret = _require(slack.slack_signing_secret, "SLACK_SIGNING_SECRET")
    options = SlackOptions.from_settings(settings, slack)
    stop = stop_signal()
    shutdown = Shutdown()
    built = build_app(settings, agents=agents)
    await check_stores(built.db)  # a store down at start: one line, not a traceback
    if oauth is not None:
        await oauth.db.aping()  # the installations' tables migrated before the first install
    probe = store_probe(built.db)
    try:  # the admin console under /admin when STATEBOT_WEB_SECRET is set (docs/web-admin.md)
        mounts = {} if socket else admin_console(settings, slack, built.db, oauth)
    except WebConfigError as exc:
        raise click.UsageError(f"{exc}; see docs/web-admin.md") from exc
    bolt = build_slack_app(
        service=built.service,
        client=web_client(token, slack.slack_api_url),
        flags=flags_for(settings),
        signing_secret=secret,
        options=options,
        shutdown=shutdown,
        oauth=oauth,
    )
    if socket:
        handler = socket_mode_handler(bolt, app_token)
        async with serving(settings.statebot_health_port, probe):
            # slack-bolt's Socket Mode handler is not annotated: its two awaitables, typed
            connect = cast(Callable[[], Awaitable[None]], handler.connect_async)
            close = cast(Callable[[], Awaitable[None]], handler.close_async)
            await connect()
            await stop.wait()
            log.info("slack_stopping", mode="socket")
            await close()  # no new envelopes; runs in flight go on
            await shutdown.drain(options.shutdown_grace)
    else:
        server = SlackHttpServer(bolt, port=port, probe=probe, mounts=mounts)
        await server.start()
        await stop.wait()
        log.info("slack_stopping", mode="http")
        await shutdown.drain(options.shutdown_grace)
        await server.stop()
    if built.scheduler is not None:
        await built.scheduler.stop()
    if built.mcp is not None:
        await built.mcp.aclose()
    await built.db.aclose()
    if oauth is not None:
        await oauth.aclose()
    log.info("slack_stopped")


@click.command("slack", context_settings=HELP_OPTIONS)
@click.option("--socket", is_flag=True, help="Use Socket Mode (SLACK_APP_TOKEN) instead of HTTP.")
@click.option("--port", type=int, default=None, help="HTTP port (default: PORT, else 3000).")
@click.option(
    "--reencrypt",
    is_flag=True,
    help="Re-encrypt stored installations under the first STATEBOT_ENCRYPTION_KEYS key, then exit.",
)
@app_option
def slack(
    socket: bool, port: int | None, reencrypt: bool, agents: Mapping[str, ChatAgent] | None
) -> None:
    """Run the Slack bot (HTTP events endpoint, or Socket Mode with --socket)."""
    settings, slack_settings = Settings(), SlackSettings()
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    if reencrypt:
        count = run_process(reencrypt_installations(settings, slack_settings), name="slack")
        click.echo(f"re-encrypted {count} stored Slack installation row(s)")
        return
    port = port or slack_settings.port
    serving_app = serve(settings, slack_settings, socket=socket, port=port, agents=agents)
    run_process(serving_app, name="slack")
