"""Catch-up: what a conversation said before the agent was in it, given to one run, once.

A chat front end that is first asked in a thread which already has messages lets
the model read them (``bots.chat.catch_up`` renders them). It wraps the run in
:func:`catching_up` with a function that fetches that text; the model loop calls
:func:`earlier_context` once per run, under the session's lease, and the text is
fetched and given to the model only when the session is **new** (never saved:
version 0). That is the record of "the agent has not seen this thread": it lives in
the store with the session, so it survives restarts and holds across processes, and
two first mentions racing in one thread catch up once (the second finds the session
the first saved).

The text goes before the question as a user message, after the system message and
the (empty) run history; it is not the run's input, so it is never stored in the
run history, sent again on later runs, or counted as the run's question. A fetch
that fails is logged and the run goes on without it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar

from core.models.base import Message
from core.utils.log import log_warning

__all__ = ["EarlierText", "catching_up", "earlier_context"]

#: fetches the rendered earlier messages (None or "": nothing to add)
EarlierText = Callable[[], Awaitable[str | None]]

_pending: ContextVar[EarlierText | None] = ContextVar("catch_up", default=None)


@contextlib.contextmanager
def catching_up(fetch: EarlierText) -> Iterator[None]:
    """Give a run started in the block ``fetch()``'s text if its session is new."""
    token = _pending.set(fetch)
    try:
        yield
    finally:
        _pending.reset(token)


async def earlier_context(new_session: bool) -> list[Message]:
    """The catch-up message for this run (at most once per block), or none."""
    fetch = _pending.get()
    if fetch is None or not new_session:
        return []
    _pending.set(None)  # once: a member run or a second model round gets nothing
    try:
        text = await fetch()
    except Exception as exc:  # context is a help, never a reason to fail the run
        log_warning("catch-up fetch failed; the run goes on without it", error=repr(exc))
        return []
    return [Message("user", text)] if text else []
