"""Run the async runtime from sync code on one long-lived background event loop.

One loop for every sync call keeps loop-bound resources (Redis and HTTP connection
pools, per-session locks) valid across calls, which ``asyncio.run`` per call would not.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop, _thread
    with _lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            _thread = threading.Thread(
                target=_loop.run_forever, name="statebot-sync-loop", daemon=True
            )
            _thread.start()
        return _loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code and return its result."""
    loop = _background_loop()
    if threading.current_thread() is _thread:
        coro.close()
        raise RuntimeError("sync API called from inside the runtime's own loop; use the a* method")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


_DONE = object()


def iterate_sync(agen: AsyncIterator[T]) -> Iterator[T]:
    """Iterate an async iterator from sync code, item by item as they are produced."""
    loop = _background_loop()
    items: queue.Queue[Any] = queue.Queue()

    async def pump() -> None:
        try:
            async for item in agen:
                items.put(item)
        except BaseException as exc:  # handed to the consumer thread, re-raised there
            items.put(exc)
        finally:
            items.put(_DONE)

    future = asyncio.run_coroutine_threadsafe(pump(), loop)
    while True:
        item = items.get()
        if item is _DONE:
            future.result()
            return
        if isinstance(item, BaseException):
            raise item
        yield item
