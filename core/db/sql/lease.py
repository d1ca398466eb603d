"""Run leases in SQL (SQLite, PostgreSQL): one run of a session at a time, FIFO, across
store instances and processes, with expiry and fencing like RedisDb's leases.

Two tables (migration 0003): ``leases`` holds the current holder of each session
(token, ``expires_at``) and ``lease_waiters`` the queued tickets in arrival order
(``seq``) with a heartbeat (``alive_until``).

* **Acquire** is one short transaction: the lease is taken when it is free (absent or
  expired) and no live ticket is ahead; otherwise a ticket is queued. Uncontended,
  that is one select and one guarded upsert.
* **Waiting** never holds a connection: a waiter sleeps, then reads (no write lock)
  whether the lease is free and how many live tickets are ahead; only when it is
  first in line and the lease is free, or its heartbeat is due (every ``stale / 3``),
  does it run the acquire transaction again. The first in line polls with a short
  backoff (2 ms up to ``poll``); the others poll less often the further back they
  are. A release in this process wakes the next waiter at once if it lives in this
  process (any store instance); other processes notice on their next poll.
* **Dead waiters** (no heartbeat for ``stale`` seconds, their process died) are pruned
  and never block the queue.
* **Expiry**: the lease lasts ``lock_ttl`` seconds; the live holder renews it every
  ``lock_ttl / 3`` in a background task. A holder that dies stops renewing, and
  after ``lock_ttl`` the first live waiter takes the lease.
* **Fencing**: a save under a lease checks, in the save's own transaction, that its
  token is still the live holder (PostgreSQL locks the lease row until the commit);
  otherwise it raises :class:`LeaseLostError` and writes nothing.
* **Bounded wait**: after ``timeout`` the ticket is removed and LockTimeoutError says
  which session stayed busy and that nothing was changed.

All times are the database's clock, so process clocks never matter.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from core.db import lease_waits
from core.db.lease_holding import holding
from core.db.records import Lease
from core.db.sql.lease_sql import Attempt, LeaseStatements
from core.exceptions import LockTimeoutError, SessionBusyError

T = TypeVar("T")

#: runs ``fn(conn, *args)`` in one transaction off the event loop
Transact = Callable[..., Awaitable[Any]]

_FIRST_POLL = 0.002

# tickets waiting in this process -> how to wake them (any store instance, any loop);
# the argument says whether the lease may be free for it now (True) or only that it
# became the oldest waiting ticket of its store (False: it starts polling)
_wakers: dict[str, Callable[[bool], None]] = {}
_wakers_lock = threading.Lock()


class SqlLeases:
    """Acquire, renew and release session leases stored in SQL tables."""

    __slots__ = (
        "_beat_at",
        "_local",
        "_lock",
        "_read",
        "_sql",
        "_write",
        "lock_ttl",
        "poll",
        "stale",
    )

    def __init__(
        self,
        statements: LeaseStatements,
        *,
        write: Transact,
        read: Transact,
        lock_ttl: float,
        stale: float = 3.0,
    ) -> None:
        if lock_ttl <= 0:
            raise ValueError(f"lock_ttl must be positive, not {lock_ttl}")
        self._sql = statements
        self._write = write
        self._read = read
        self.lock_ttl = lock_ttl
        self.stale = stale
        self.poll = min(0.05, lock_ttl / 3)
        # this store's waiting tickets: session -> {ticket: seq}; only the oldest polls
        self._local: dict[str, dict[str, int]] = {}
        self._lock = threading.Lock()
        self._beat_at = 0.0  # time.monotonic() of the last heartbeat of all tickets

    def _interval(self, ahead: int, polls: int) -> float:
        """Seconds to sleep before the next look: short for the first in line."""
        return float(min(self.poll * (ahead + 1), self.stale / 3, _FIRST_POLL * 2**polls))

    def _oldest_here(self, session_id: str, ticket: str) -> bool:
        with self._lock:
            queued = self._local.get(session_id, {})
            return bool(queued) and min(queued, key=queued.__getitem__) == ticket

    def _leave(self, session_id: str, ticket: str) -> None:
        """Drop a ticket from the local queue and let the next oldest one poll."""
        with self._lock:
            queued = self._local.get(session_id, {})
            queued.pop(ticket, None)
            following = min(queued, key=queued.__getitem__) if queued else None
            if not queued:
                self._local.pop(session_id, None)
        if following is not None:
            _wake(following, lease_free=False)

    async def _beat_if_due(self) -> None:
        """One statement keeps every waiting ticket of this store alive."""
        now = time.monotonic()
        if now - self._beat_at < self.stale / 3:
            return
        self._beat_at = now
        with self._lock:
            tickets = [t for queued in self._local.values() for t in queued]
        if tickets:
            await _settled(self._write(self._sql.beat, tickets, self.stale))

    async def acquire(
        self, session_id: str, timeout: float | None, *, max_waiters: int | None = None
    ) -> Lease:
        """Wait for the lease (FIFO); SessionBusyError at once when ``max_waiters``
        tickets already wait, LockTimeoutError after ``timeout`` seconds."""
        ticket = uuid.uuid4().hex
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        woken = asyncio.Event()
        handed = False  # a release woke us: the lease is probably free for us

        def on_loop(lease_free: bool) -> None:
            nonlocal handed
            handed = handed or lease_free
            woken.set()

        def wake(lease_free: bool) -> None:  # called from any thread or loop in this process
            loop.call_soon_threadsafe(on_loop, lease_free)

        with _wakers_lock:
            _wakers[ticket] = wake
        try:
            attempt = await _settled(self._try(session_id, ticket, max_waiters))
            if attempt.busy:
                raise SessionBusyError(session_id, max_waiters or 0)
            with self._lock:
                self._local.setdefault(session_id, {})[ticket] = attempt.seq
            if not attempt.held:
                lease_waits.queued(attempt.ahead + 1)  # the holder and those before us
            polls = 0
            while not attempt.held:
                first = self._oldest_here(session_id, ticket)
                # later tickets of this store wait for the oldest one to leave
                wait = self._interval(attempt.ahead, polls) if first else self.stale / 3
                if deadline is not None:
                    wait = min(wait, deadline - loop.time())
                    if wait <= 0:
                        break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken.wait(), wait)
                polls += 1
                await self._beat_if_due()
                woken.clear()
                if not handed:
                    if not self._oldest_here(session_id, ticket):
                        continue
                    free, ahead = await _settled(self._read(self._sql.peek, session_id, ticket))
                    if ahead is not None and not (free and ahead == 0):
                        if ahead != attempt.ahead:
                            attempt, polls = Attempt(held=False, ahead=ahead, seq=attempt.seq), 0
                        continue
                handed = False
                attempt = await _settled(self._try(session_id, ticket, None))
                with self._lock:  # a ticket pruned meanwhile was queued again, at the end
                    if not attempt.held and session_id in self._local:
                        self._local[session_id][ticket] = attempt.seq
        except BaseException:
            # cancelled or the database failed: leave no ticket behind (and no lease)
            with contextlib.suppress(Exception):
                await asyncio.shield(self._write(self._sql.cancel, session_id, ticket))
            raise
        finally:
            with _wakers_lock:
                _wakers.pop(ticket, None)
            self._leave(session_id, ticket)
        if attempt.held:
            return Lease(session_id, ticket)
        await asyncio.shield(self._write(self._sql.cancel, session_id, ticket))
        raise LockTimeoutError(
            f"session {session_id!r} stayed busy for more than {timeout}s: another run "
            "holds its lease; nothing was changed, try again later"
        )

    def _try(self, session_id: str, ticket: str, max_waiters: int | None) -> Awaitable[Attempt]:
        return self._write(
            self._sql.try_acquire, session_id, ticket, self.lock_ttl, self.stale, max_waiters
        )

    async def renew(self, lease: Lease, ttl: float | None = None) -> bool:
        """Extend a held lease (by ``lock_ttl`` or ``ttl``); False when it was lost
        (expired, released, taken over)."""
        extend = self.lock_ttl if ttl is None else ttl
        return bool(await self._write(self._sql.renew, lease.session_id, lease.token, extend))

    async def release(self, lease: Lease) -> bool:
        """Give the lease back and wake the next waiter if it waits in this process."""
        released, head = await self._write(
            self._sql.release, lease.session_id, lease.token, want_head=bool(_wakers)
        )
        if head is not None:
            _wake(head, lease_free=True)
        return bool(released)

    async def held(self, session_id: str) -> bool:
        """Whether the session's lease is held now, by any process."""
        return bool(await self._read(self._sql.held, session_id))

    async def held_all(self) -> dict[str, str]:
        """Every lease held now, by any process: session id -> holder token."""
        held: dict[str, str] = await self._read(self._sql.held_all)
        return held

    async def waiting(self, session_id: str) -> int:
        """How many tickets are queued for a session (for tests and admin)."""
        return int(await self._read(self._sql.waiting, session_id))

    @contextlib.asynccontextmanager
    async def hold(
        self, session_id: str, timeout: float | None, *, max_waiters: int | None = None
    ) -> AsyncIterator[Lease]:
        """Hold the lease for the duration of a run, renewing it in the background."""
        lease = await self.acquire(session_id, timeout, max_waiters=max_waiters)
        async with holding(self, lease) as held:
            yield held


def lease_waiters_here() -> bool:
    """Whether some ticket waits in this process (so a release should name the next)."""
    return bool(_wakers)


def wake_next(ticket: str) -> None:
    """Wake the ticket a release in a save's transaction named as next, if it waits here."""
    _wake(ticket, lease_free=True)


def _wake(ticket: str, *, lease_free: bool) -> None:
    """Wake a ticket that waits in this process (any store instance, any loop)."""
    with _wakers_lock:
        wake = _wakers.get(ticket)
    if wake is not None:
        wake(lease_free)


async def _settled(call: Awaitable[T]) -> T:
    """Await a call that runs in a thread; if cancelled, let it finish first.

    A transaction already running in its thread commits whatever the caller does; the
    caller's clean-up must come after it, or it could miss a lease granted meanwhile.
    """
    task = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await task
        raise
