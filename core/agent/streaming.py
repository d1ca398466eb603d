"""Turning a run that reports text chunks into an async iterator of RunEvents."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from core.agent.loop import ContentSink
from core.run.events import RunEvent
from core.run.output import RunOutput

_END = object()


async def stream_run(
    start: Callable[[ContentSink], Coroutine[Any, Any, RunOutput]],
) -> AsyncIterator[RunEvent]:
    """Yield text chunks as the model produces them, then the final output."""
    chunks: asyncio.Queue[Any] = asyncio.Queue()
    task = asyncio.ensure_future(start(chunks.put_nowait))
    task.add_done_callback(lambda _: chunks.put_nowait(_END))
    try:
        while (item := await chunks.get()) is not _END:
            yield RunEvent(content=item)
        yield RunEvent(content=(await task).content or "", run_output=task.result())
    finally:
        if not task.done():
            task.cancel()
