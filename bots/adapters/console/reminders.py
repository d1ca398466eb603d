"""Scheduled runs in the console: a reminder set here fires here, printed in the terminal.

The console process runs the same scheduler as a chat process (``bots.app.build``) and
registers the ``console`` delivery on its service, so the due list it claims holds
console schedules only (``bots.chat.schedules.PlatformSchedules``): a Slack or Discord
reminder in the same store is left to the process that can post it. The reply goes
through :meth:`ConsoleOutput.notice`, above the prompt; a reply for a session other
than the current one says which session it belongs to. At exit the scheduler stops
within the console's grace period; a run cut short is retried by the next scheduler
that polls this store (its claim expires), so it is not lost.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import structlog

from bots.adapters.console.output import ConsoleOutput
from bots.adapters.console.session import PLATFORM, ConsoleSession
from bots.chat.replies import Reply
from bots.chat.schedules import Deliver
from core.schedule import Scheduler

log = structlog.get_logger(__name__)


def console_delivery(console: ConsoleSession, output: ConsoleOutput) -> Deliver:
    """Print a scheduled reply to this console, naming its session if not the current one."""

    async def deliver(target: Mapping[str, Any], reply: Reply) -> None:
        session = str(target.get("channel") or "")
        if session and session != console.session:
            output.notice(f"[session {session}] {reply.text}")
        else:
            output.notice(reply.text)

    return deliver


@contextlib.asynccontextmanager
async def console_schedules(
    console: ConsoleSession,
    scheduler: Scheduler | None,
    output: ConsoleOutput,
    *,
    grace: float,
) -> AsyncIterator[None]:
    """Fire this store's console schedules while the console runs; stop them at exit."""
    console.service.deliveries.register(PLATFORM, console_delivery(console, output))
    if scheduler is None:
        yield
        return
    scheduler.start()
    try:
        yield
    finally:
        try:
            await asyncio.wait_for(scheduler.stop(), grace)
        except TimeoutError:
            log.warning("console_scheduler_stopped_mid_run", grace=grace)
