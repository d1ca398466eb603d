"""Serving Telegram: build the app, take updates, drain on a stop signal.

Long polling by default; with TELEGRAM_WEBHOOK_URL (and TELEGRAM_WEBHOOK_SECRET) the
bot sets its webhook and serves it on TELEGRAM_WEBHOOK_PORT. SIGTERM or SIGINT stops
it gracefully: no new updates are taken (the webhook answers 503 so Telegram keeps
them), runs in flight get ``STATEBOT_SHUTDOWN_GRACE`` seconds to reply, then the
scheduler stops, the store closes and the process exits 0.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar
from urllib.parse import urlsplit

import click
import structlog
from aiohttp import web
from telegram.error import InvalidToken, TelegramError

from bots.adapters.telegram.bot import identity_of, make_bot, publish_commands
from bots.adapters.telegram.intake import ALLOWED_UPDATES, Intake, PollingStopped
from bots.adapters.telegram.keyboards import buttons_for
from bots.adapters.telegram.names import TelegramNames
from bots.adapters.telegram.scheduled import telegram_delivery
from bots.adapters.telegram.settings import TelegramSettings
from bots.adapters.telegram.updates import UpdateHandler
from bots.app.build import AgentSource, App, build_app
from bots.ops.drain import Drain, on_stop_signal
from bots.ops.flags import flags_for
from bots.ops.health import serving, store_probe
from bots.ops.startup import check_stores
from bots.settings import Settings

log = structlog.get_logger(__name__)
T = TypeVar("T")

__all__ = ["run", "serve"]


def _checked(tg: TelegramSettings) -> str:
    """The token; a usage error naming what is missing."""
    if tg.telegram_bot_token is None:
        raise click.UsageError("TELEGRAM_BOT_TOKEN is not set; see docs/chat-setup.md")
    if tg.telegram_webhook_url and tg.telegram_webhook_secret is None:
        raise click.UsageError(
            "TELEGRAM_WEBHOOK_URL is set but TELEGRAM_WEBHOOK_SECRET is not; the webhook "
            "needs the secret to tell Telegram's requests from anyone else's"
        )
    return tg.telegram_bot_token.get_secret_value()


async def serve(
    settings: Settings, tg: TelegramSettings, *, agents: AgentSource | None = None
) -> None:
    """Build the app, check the stores, answer until a stop signal, then close."""
    _checked(tg)
    app = build_app(settings, agents=agents)
    try:
        await check_stores(app.db)  # a store down at start: one line, not a traceback
        await run(app, tg)
    finally:
        if app.scheduler is not None:
            await app.scheduler.stop()  # the run it is firing finishes first
        if app.mcp is not None:
            await app.mcp.aclose()
        await app.db.aclose()


async def run(app: App, tg: TelegramSettings) -> bool:
    """Serve ``app`` on Telegram until SIGTERM/SIGINT; True when every run finished."""
    settings = app.settings
    bot = make_bot(_checked(tg), tg.telegram_api_url)
    flags, buttons = flags_for(settings), buttons_for(settings)
    try:
        identity = await _starting(identity_of(bot), tg)
        handler = UpdateHandler(
            bot, identity, app.service, flags=flags, buttons=buttons, drain=Drain()
        )
        app.service.deliveries.register("telegram", telegram_delivery(bot, buttons))
        app.service.use_names("telegram", TelegramNames(bot))  # the model reads names
        await _starting(publish_commands(bot, app.service.agents), tg)
        intake = Intake(bot, handler)
        with on_stop_signal(lambda _signal: intake.stop()):
            if tg.telegram_webhook_url:
                async with _webhook(intake, app, tg):
                    await intake.wait()
            else:
                async with serving(settings.statebot_health_port, store_probe(app.db)):
                    try:
                        await intake.poll()
                    except PollingStopped as exc:  # drain what runs, then exit non-zero
                        await intake.drain(settings.statebot_shutdown_grace)
                        raise click.ClickException(f"statebot telegram: {exc}") from None
            finished = await intake.drain(settings.statebot_shutdown_grace)
        log.info("telegram_stopped", platform="telegram", drained=finished)
        return finished
    finally:
        await bot.shutdown()
        await flags.aclose()
        await buttons.aclose()


async def _starting(step: Awaitable[T], tg: TelegramSettings) -> T:
    """A start-up call to the Bot API; a refusal or no answer is one line, not a traceback."""
    try:
        return await step
    except InvalidToken:
        raise click.ClickException(
            "statebot telegram: the Bot API refused TELEGRAM_BOT_TOKEN (check it with @BotFather)"
        ) from None
    except TelegramError as exc:
        raise click.ClickException(
            f"statebot telegram: the Bot API at {tg.telegram_api_url} did not answer: {exc}"
        ) from None


@contextlib.asynccontextmanager
async def _webhook(intake: Intake, app: App, tg: TelegramSettings) -> AsyncIterator[None]:
    """Serve the webhook (and health routes), then point Telegram at it."""
    assert tg.telegram_webhook_url is not None and tg.telegram_webhook_secret is not None
    secret = tg.telegram_webhook_secret.get_secret_value()
    path = urlsplit(tg.telegram_webhook_url).path or "/"
    runner = web.AppRunner(intake.webhook_app(secret, path, store_probe(app.db)), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, "0.0.0.0", tg.telegram_webhook_port).start()
        hook = intake.bot.set_webhook(
            tg.telegram_webhook_url, secret_token=secret, allowed_updates=list(ALLOWED_UPDATES)
        )
        await _starting(hook, tg)
        log.info("telegram_webhook_set", platform="telegram", port=tg.telegram_webhook_port)
        yield
    finally:
        await runner.cleanup()
