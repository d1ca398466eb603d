"""Starting a long-running process: check the stores first, fail in one line, not a traceback.

A bot or snapshotter that cannot reach Redis, the durable store or the chat platform
at start has nothing useful to do; the operator needs the one line saying what is
unreachable (click prints ``Error: …`` and exits 1), not ninety lines of aiohttp frames.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiohttp
import click

from bots.ops import tracing
from bots.settings import Settings
from core.db.base import BaseDb
from core.db.fronts import arecord_front
from core.exceptions import StoreError

T = TypeVar("T")

#: failures of the network or of a store, not of the code: reported in one line
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError,  # refused, unreachable, DNS (aiohttp's ClientConnectorError is one too)
    aiohttp.ClientConnectionError,
    TimeoutError,
    StoreError,
)


async def check_stores(db: BaseDb) -> None:
    """Ping Redis and the durable store behind it (StoreError when one is down), then
    record in the durable store that this Redis serves it (``core.db.fronts``):
    ``statebot state`` run without the Redis URL refuses writes the bots would not see."""
    await db.aping()
    await arecord_front(db, seen_by=socket.gethostname())


def run_process(main: Coroutine[Any, Any, T], *, name: str) -> T:
    """``asyncio.run(main)``; an unreachable network or store becomes one ``Error:`` line.

    Tracing is switched on here (``STATEBOT_OTEL``), once per process.
    """
    tracing.install(Settings().statebot_otel)
    try:
        return asyncio.run(main)
    except UNREACHABLE as exc:
        raise click.ClickException(f"statebot {name}: {one_line(exc)}") from None


def one_line(exc: BaseException) -> str:
    """The failure in one line: its message (or its type when it has none)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__
