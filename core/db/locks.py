"""The default run lock of a store: per-session FIFO asyncio locks in one process.

RedisDb replaces it with a lease shared by all processes (core/db/redis/lease.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator

from core.db import lease_waits
from core.db.records import Lease
from core.exceptions import LockTimeoutError, SessionBusyError

__all__ = ["FifoLocks"]


class FifoLocks:
    """Per-session asyncio locks, one table per event loop (locks are loop-bound).

    At most ``max_waiters`` runs wait per session; the next one is refused at once
    with SessionBusyError, so a flood of messages to one session stays bounded.
    """

    __slots__ = ("_by_loop", "_holders")

    def __init__(self) -> None:
        self._by_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, tuple[asyncio.Lock, int]]
        ] = weakref.WeakKeyDictionary()
        # the lease each held lock was handed out as, so a save can release it early
        self._holders: dict[int, tuple[Lease, asyncio.Lock]] = {}

    async def held(self, session_id: str) -> bool:
        """Whether a run (of any event loop of this process) holds the session's lock."""
        return any(lease.session_id == session_id for lease, _ in self._holders.values())

    async def held_all(self) -> dict[str, str]:
        """Every lock held now: session id -> a name of its holder (for waiting it out)."""
        return {lease.session_id: str(key) for key, (lease, _) in self._holders.items()}

    def release(self, lease: Lease) -> bool:
        """Give a held lock back before its block ends (a save with ``release=True``)."""
        held = self._holders.get(id(lease))
        if held is None or held[0] is not lease or lease.released:
            return False
        del self._holders[id(lease)]
        lease.released = True
        held[1].release()
        return True

    @contextlib.asynccontextmanager
    async def hold(
        self, session_id: str, timeout: float | None, *, max_waiters: int | None = None
    ) -> AsyncIterator[Lease]:
        table = self._by_loop.setdefault(asyncio.get_running_loop(), {})
        lock, users = table.get(session_id, (asyncio.Lock(), 0))
        # users = the holder (when locked) plus everyone waiting
        waiting = users - 1 if lock.locked() else users
        if max_waiters is not None and lock.locked() and waiting >= max_waiters:
            raise SessionBusyError(session_id, max_waiters)
        table[session_id] = (lock, users + 1)
        if lock.locked():
            lease_waits.queued(waiting + 1)  # the holder and those before us
        try:
            try:
                await asyncio.wait_for(lock.acquire(), timeout)
            except TimeoutError as exc:
                raise LockTimeoutError(
                    f"session {session_id!r} stayed busy for more than {timeout}s"
                ) from exc
            lease = Lease(session_id)
            self._holders[id(lease)] = (lease, lock)
            try:
                yield lease
            finally:
                if self._holders.pop(id(lease), None) is not None:
                    lock.release()
        finally:
            lock_now, users_now = table[session_id]
            if users_now <= 1:
                del table[session_id]  # keep the table as small as the set of busy sessions
            else:
                table[session_id] = (lock_now, users_now - 1)
