"""Holding a run lease: renewed in the background until the run ends or hits its deadline.

Shared by the Redis and the SQL leases, which differ in how a lease is taken, renewed
and released, not in how a holder keeps it. The keep-alive is stopped by an event, not
by cancellation: redis-py may swallow a CancelledError that lands inside a command,
which would leave the loop running forever. It never renews past the run's deadline
(``Lease.renew_until``): there it releases the lease, so a hung run that ignores its
cancellation holds the session no longer than its deadline, and its later saves fail
the fencing check.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Protocol

from core.db.records import Lease
from core.utils.log import log_warning


class RenewableLeases(Protocol):
    """What a lease backend offers a holder."""

    lock_ttl: float

    async def renew(self, lease: Lease, ttl: float | None = None) -> bool:
        """Extend a held lease (to ``ttl`` seconds); False when it was lost."""

    async def release(self, lease: Lease) -> bool:
        """Give the lease back (handing it on); False when it was not held."""


async def keep_alive(leases: RenewableLeases, lease: Lease, stop: asyncio.Event) -> None:
    """Renew every ``lock_ttl / 3`` until ``stop`` is set, the lease is lost, or the deadline."""
    while True:
        wait = leases.lock_ttl / 3
        if lease.renew_until is not None:
            wait = min(wait, lease.renew_until - time.monotonic())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max(wait, 0))
            return
        if lease.released:
            return
        left = None if lease.renew_until is None else lease.renew_until - time.monotonic()
        try:
            if left is not None and left <= 0:
                # the run's deadline: never renewed past it; the next run may start
                if await leases.release(lease):
                    log_warning(
                        "run deadline passed while holding the lease; released it",
                        session_id=lease.session_id,
                    )
                return
            ttl = None if left is None else min(left, leases.lock_ttl)
            if not await leases.renew(lease, ttl):
                if not lease.released:  # given back by a save meanwhile: not lost
                    log_warning("lease lost; saves under it fail", session_id=lease.session_id)
                return
        except Exception as exc:  # a store blip: keep trying until the lease expires
            log_warning("could not renew lease", session_id=lease.session_id, error=str(exc))


@contextlib.asynccontextmanager
async def holding(leases: RenewableLeases, lease: Lease) -> AsyncIterator[Lease]:
    """Keep ``lease`` alive for the block, then release it (it expires if that fails)."""
    stop = asyncio.Event()
    renewer = asyncio.create_task(keep_alive(leases, lease, stop))
    try:
        yield lease
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await renewer
        if not lease.released:  # else given back by the run's last save, atomically
            try:
                await asyncio.shield(leases.release(lease))
            except Exception as exc:  # it expires by itself after lock_ttl
                log_warning(f"could not release lease of session {lease.session_id!r}: {exc}")
