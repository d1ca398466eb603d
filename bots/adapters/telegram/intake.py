"""Where updates come from: long polling (the default, no public URL) or the webhook.

Both feed :class:`~bots.adapters.telegram.updates.UpdateHandler`, one task per update.

- **Polling**: python-telegram-bot's ``Updater`` long-polls ``getUpdates``. Telegram
  counts an update as delivered once a later poll confirms its offset, which the
  ``Updater`` does when it has queued it; so on shutdown the queued but unstarted
  updates are answered "restarting, please resend", never dropped silently.
- **Webhook** (``TELEGRAM_WEBHOOK_URL``): ``setWebhook`` with a secret token; a POST
  whose ``X-Telegram-Bot-Api-Secret-Token`` header is not that secret gets 401 and
  is not read. While shutting down the webhook answers 503, so Telegram keeps the
  update and delivers it again (to this process after the restart, or another one).
  The webhook server also serves ``/healthz`` ``/readyz`` ``/metrics``.
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Any

import structlog
from aiohttp import web
from telegram import Bot, Update
from telegram.error import TelegramError
from telegram.ext import Updater

from bots.adapters.telegram.updates import UpdateHandler
from bots.ops.health import Probe, add_routes

log = structlog.get_logger(__name__)

__all__ = ["ALLOWED_UPDATES", "SECRET_HEADER", "Intake", "PollingStopped"]

ALLOWED_UPDATES = ("message", "callback_query")
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
POLL_TIMEOUT = 10  # seconds one getUpdates waits for news
NOTICE_SECONDS = 5.0  # after the grace: how long the last handlers get to say so
POLLING_TASK = "Updater:start_polling:polling_task"  # python-telegram-bot's name for it


class Intake:
    """Runs the handler on every update until :meth:`stop`, then drains."""

    def __init__(self, bot: Bot, handler: UpdateHandler) -> None:
        self.bot = bot
        self._handler = handler
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopped = asyncio.Event()

    def _spawn(self, update: Update) -> None:
        task = asyncio.create_task(self._handler.handle(update))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def poll(self) -> None:
        """Long-poll until :meth:`stop`; then answer what was fetched but not started."""
        queue: asyncio.Queue[object] = asyncio.Queue()
        updater = Updater(self.bot, queue)
        await updater.initialize()
        await updater.start_polling(timeout=POLL_TIMEOUT, allowed_updates=list(ALLOWED_UPDATES))
        log.info("telegram_polling", platform="telegram")
        poller = _polling_task()
        getter: asyncio.Task[object] | None = None
        stopped = asyncio.create_task(self._stopped.wait())
        try:
            while not self._stopped.is_set():
                getter = asyncio.create_task(queue.get())
                await asyncio.wait({getter, stopped, poller}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    self._spawn(_update(getter.result()))
                elif poller.done() and not self._stopped.is_set():
                    self.stop()  # polling gave up (a revoked token): stop, do not idle
                    raise PollingStopped(_why(poller))
        finally:
            if getter is not None and not getter.done():
                getter.cancel()
            stopped.cancel()
            # confirms the offset of everything queued; not updater.shutdown(): that
            # closes the bot's connections, which runs still draining need
            try:
                await updater.stop()
            except TelegramError as exc:  # the ended loop's error again, already reported
                log.warning("telegram_polling_ended", platform="telegram", error=str(exc))
        while not queue.empty():  # fetched, confirmed, not started: told to resend
            self._spawn(_update(queue.get_nowait()))

    def webhook_app(self, secret: str, path: str, probe: Probe) -> web.Application:
        """The webhook route (secret checked) and the health routes."""
        app = web.Application()

        async def receive(request: web.Request) -> web.Response:
            given = request.headers.get(SECRET_HEADER, "")
            if not hmac.compare_digest(given.encode(), secret.encode()):
                log.warning("telegram_webhook_bad_secret", platform="telegram")
                return web.Response(status=401, text="wrong secret token")
            if self._stopped.is_set():
                return web.Response(status=503, text="restarting")  # Telegram retries
            try:
                payload: Any = await request.json()
                update = Update.de_json(payload, self.bot)
            except (ValueError, TypeError, KeyError, AttributeError):
                return web.Response(status=400, text="not an update")
            self._spawn(update)
            return web.Response(text="ok")

        app.router.add_post(path or "/", receive)
        add_routes(app, probe)
        return app

    async def wait(self) -> None:
        """Until :meth:`stop` is called (webhook mode: the server works meanwhile)."""
        await self._stopped.wait()

    def stop(self) -> None:
        """Stop taking updates: the poll loop ends, the webhook answers 503."""
        self._handler.drain.closing = True
        self._stopped.set()

    async def drain(self, grace: float) -> bool:
        """Let handlers finish within ``grace`` s; True when none was cut short."""
        finished = await self._handler.drain.shutdown(grace)
        if self._tasks:  # handlers not yet tracked (claiming), or telling users they stopped
            _, pending = await asyncio.wait(set(self._tasks), timeout=NOTICE_SECONDS)
            for task in pending:
                task.cancel()
            finished = finished and not pending
        return finished


class PollingStopped(RuntimeError):
    """The library's polling loop ended on its own (it gives up only on a refused token)."""


def _polling_task() -> asyncio.Task[object]:
    """The Updater's polling loop, found by the name the library gives it.

    The loop retries network errors forever but ends on a refused token; without
    watching it the process would stay up, healthy to its probes, taking nothing.
    """
    for task in asyncio.all_tasks():
        if task.get_name() == POLLING_TASK:
            return task
    raise RuntimeError(f"python-telegram-bot started no task named {POLLING_TASK!r}")


def _why(task: asyncio.Task[object]) -> str:
    error = None if task.cancelled() else task.exception()
    return f"polling for updates stopped: {error or 'the loop ended'}"


def _update(item: object) -> Update:
    if not isinstance(item, Update):  # the Updater queues only updates
        raise TypeError(f"unexpected item in the update queue: {item!r}")
    return item
