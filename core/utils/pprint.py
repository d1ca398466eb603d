"""Print a run's answer, or its stream as it arrives (Agno's ``agno.utils.pprint`` path).

Plain text on standard output. Agno draws rich panels and renders Markdown with
``rich``, which this project does not depend on: ``markdown=True`` prints the
Markdown text as it is. ``show_time=True`` adds the response time, as Agno does.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterable, Iterable
from typing import Any

__all__ = ["apprint_run_response", "pprint_run_response"]


def _chunk(event: Any) -> str:
    """The text an event adds to the answer ('' for events that add none)."""
    if getattr(event, "event", None) not in (None, "RunContent", "TeamRunContent"):
        return ""
    content = getattr(event, "content", None)
    return content if isinstance(content, str) else ""


def _whole(run_response: Any) -> str:
    text = getattr(run_response, "get_content_as_string", None)
    return str(text()) if callable(text) else str(getattr(run_response, "content", "") or "")


def _time_line(seconds: float) -> str:
    return f"Response ({seconds:.1f}s)"


def pprint_run_response(run_response: Any, markdown: bool = False, show_time: bool = False) -> None:
    """Print a run output's content, or each content chunk of a stream as it comes."""
    started = time.perf_counter()
    if hasattr(run_response, "content") and not isinstance(run_response, Iterable):
        print(_whole(run_response))
        if show_time:
            metrics = getattr(run_response, "metrics", None)
            print(_time_line(getattr(metrics, "duration_s", 0.0) or 0.0))
        return
    for event in run_response:
        print(_chunk(event), end="", flush=True)
    print()
    if show_time:
        print(_time_line(time.perf_counter() - started))


async def apprint_run_response(
    run_response: AsyncIterable[Any], markdown: bool = False, show_time: bool = False
) -> None:
    """The async twin: print each content chunk of an async stream as it comes."""
    started = time.perf_counter()
    async for event in run_response:
        print(_chunk(event), end="", flush=True)
    print()
    if show_time:
        print(_time_line(time.perf_counter() - started))
