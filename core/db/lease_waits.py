"""Hearing that a run is queued for its session's lease: one hook, no polling.

Runs of one session go one at a time (``BaseDb.session_lock``); a run that arrives
while another holds the lease waits its turn. A front end that wants to tell its
user so (a chat's "queued behind 2") wraps the run in :func:`on_queued`; whichever
lease backend serves the run (in-process locks, SQL or Redis leases) calls the
listener at most **once** per block, at the moment the run joins the queue, with how many runs are
ahead of it (the one holding the lease included). A run that gets the lease at
once calls nothing, and a listener costs nothing when no run waits.

The listener is synchronous and must not block (schedule the announcement, do not
await it here); whatever it raises is logged and ignored, since a notice must never
fail or delay the run it announces. The listener is a context variable, so it
follows the run into every task the run starts and never leaks to another run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from core.utils.log import log_warning

__all__ = ["WaitListener", "listening", "on_queued", "queued"]

#: called once with the number of runs ahead when a run joins its session's queue
WaitListener = Callable[[int], None]

_listener: ContextVar[WaitListener | None] = ContextVar("lease_wait_listener", default=None)


@contextlib.contextmanager
def on_queued(listener: WaitListener) -> Iterator[None]:
    """Call ``listener(ahead)`` if a run started inside the block has to wait its turn."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def listening() -> bool:
    """Whether someone listens (a backend may skip counting the queue otherwise)."""
    return _listener.get() is not None


def queued(ahead: int) -> None:
    """Announce that the current run waits behind ``ahead`` runs (backends call this)."""
    listener = _listener.get()
    if listener is None:
        return
    _listener.set(None)  # once per block: a member run waiting later is not this run
    try:
        listener(max(ahead, 1))
    except Exception as exc:  # a notice must never fail the run it announces
        log_warning("queued notice failed", error=repr(exc))
