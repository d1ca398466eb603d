"""Run leases in Redis: runs of one session go one at a time, FIFO, across processes.

A caller takes a ticket (an arrival number in the session's ``queue``) and the lease
key when it is both free and the ticket is the oldest live one. Waiters block on a
per-ticket wake list (BLPOP) and re-check every ``poll`` seconds, which also renews
their heartbeat; a waiter that stops polling (its process died) is dropped after
``stale`` seconds so it never blocks the queue. On release the holder hands the lease
straight to the next waiter and wakes it. The lease expires after ``lock_ttl`` unless
its live holder renews it; the token is checked by every save (fencing), so a holder
whose lease expired and was taken over cannot write.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

from core.db.base import Lease, LockTimeoutError
from core.db.redis import lease_scripts as scripts
from core.db.redis.client import RedisClients
from core.db.redis.keys import SessionKeys
from core.utils.log import log_warning


class LeaseManager:
    """Acquire, renew and release session leases."""

    __slots__ = ("_clients", "_prefix", "lock_ttl", "poll", "stale")

    def __init__(
        self, clients: RedisClients, prefix: str, *, lock_ttl: float, stale: float = 3.0
    ) -> None:
        if lock_ttl <= 0:
            raise ValueError(f"lock_ttl must be positive, not {lock_ttl}")
        self._clients = clients
        self._prefix = prefix
        self.lock_ttl = lock_ttl
        self.stale = stale
        self.poll = min(0.5, lock_ttl / 3, stale / 3)

    def _ms(self, seconds: float) -> int:
        return max(1, int(seconds * 1000))

    async def acquire(self, session_id: str, timeout: float | None) -> Lease:
        """Wait for the lease (FIFO); LockTimeoutError after ``timeout`` seconds."""
        keys = SessionKeys(self._prefix, session_id)
        ticket = uuid.uuid4().hex
        wake = keys.wake(ticket)
        client = self._clients.get()
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        me = asyncio.current_task()
        acquire_keys = [keys.lease, keys.queue, keys.alive, keys.seq, keys.wake_prefix, wake]
        acquire_args = [ticket, self._ms(self.lock_ttl), self._ms(self.stale)]
        try:
            with self._clients.unavailable(f"lock session {session_id!r}"):
                while True:
                    if await scripts.ACQUIRE(client, acquire_keys, acquire_args) == 1:
                        return Lease(session_id, ticket)
                    wait = self.poll
                    if deadline is not None:
                        wait = min(wait, deadline - loop.time())
                        if wait <= 0:
                            break
                    # a hand-off pushes to our wake list; the next ACQUIRE confirms it
                    await client.blpop([wake], timeout=max(wait, 0.01))
                    if me is not None and me.cancelling():
                        # redis-py may swallow a cancellation that lands inside a command
                        raise asyncio.CancelledError
        except BaseException:
            # cancelled or Redis failed: leave no ticket behind (and no lease if granted)
            with contextlib.suppress(Exception):
                if await asyncio.shield(self._cancel(keys, ticket)):
                    await asyncio.shield(self.release(Lease(session_id, ticket)))
            raise
        with self._clients.unavailable(f"stop waiting for session {session_id!r}"):
            if await self._cancel(keys, ticket):
                return Lease(session_id, ticket)  # handed over at the last moment
        raise LockTimeoutError(
            f"session {session_id!r} stayed busy for more than {timeout}s: another run "
            "holds its lease; nothing was changed, try again later"
        )

    async def _cancel(self, keys: SessionKeys, ticket: str) -> bool:
        return bool(
            await scripts.CANCEL(
                self._clients.get(),
                [keys.lease, keys.queue, keys.alive, keys.wake_prefix, keys.wake(ticket)],
                [ticket, self._grant_ms()],
            )
        )

    def _grant_ms(self) -> int:
        # a handed-over lease lives only as long as a waiter may be silent, so a waiter
        # that died while queued delays the others by at most ``stale``
        return self._ms(min(self.lock_ttl, self.stale))

    async def renew(self, lease: Lease) -> bool:
        """Extend a held lease; False when it was lost (expired and maybe taken over)."""
        keys = SessionKeys(self._prefix, lease.session_id)
        with self._clients.unavailable(f"renew the lease of session {lease.session_id!r}"):
            result = await scripts.RENEW(
                self._clients.get(), [keys.lease], [lease.token, self._ms(self.lock_ttl)]
            )
        return bool(result)

    async def release(self, lease: Lease) -> bool:
        """Give the lease back and wake the next waiter; False when it was not held."""
        keys = SessionKeys(self._prefix, lease.session_id)
        with self._clients.unavailable(f"release the lease of session {lease.session_id!r}"):
            result = await scripts.RELEASE(
                self._clients.get(),
                [keys.lease, keys.queue, keys.alive, keys.wake_prefix],
                [lease.token, self._grant_ms()],
            )
        return bool(result)

    async def waiting(self, session_id: str) -> int:
        """How many tickets are queued for a session (for tests and admin)."""
        keys = SessionKeys(self._prefix, session_id)
        with self._clients.unavailable("count waiters"):
            return int(await self._clients.get().zcard(keys.queue))

    async def _keep_alive(self, lease: Lease, stop: asyncio.Event) -> None:
        # stopped by an event, not by cancellation: redis-py may swallow a CancelledError
        # that lands inside a command, which would leave this loop running forever
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.lock_ttl / 3)
                return
            try:
                if not await self.renew(lease):
                    log_warning("lease lost; saves under it fail", session_id=lease.session_id)
                    return
            except Exception as exc:  # a Redis blip: keep trying until the lease expires
                log_warning("could not renew lease", session_id=lease.session_id, error=str(exc))

    @contextlib.asynccontextmanager
    async def hold(self, session_id: str, timeout: float | None) -> AsyncIterator[Lease]:
        """Hold the lease for the duration of a run, renewing it in the background."""
        lease = await self.acquire(session_id, timeout)
        stop = asyncio.Event()
        renewer = asyncio.create_task(self._keep_alive(lease, stop))
        try:
            yield lease
        finally:
            stop.set()
            with contextlib.suppress(Exception):
                await renewer
            try:
                await asyncio.shield(self.release(lease))
            except Exception as exc:  # it expires by itself after lock_ttl
                log_warning(f"could not release lease of session {session_id!r}: {exc}")
