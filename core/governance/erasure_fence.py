"""Keeping a user's runs out while their data is erased (step 0 of ``erasure``).

An erasure that only scans and rewrites loses a race: a run of the user that was
already waiting for a session's lease when it began saves after the scan, and names
the user again. So an erasure first holds the user's *marker*
(``BaseDb.user_block``, ``core/db/user_blocks.py``): every run of the user that gets
its session lease from then on is refused with ``ErasureInProgressError``. Runs that
got their lease before the marker was taken are in flight; the erasure waits until
every run lease held at that moment has been let go (:func:`wait_for_runs_in_flight`),
so their saves land before its scan. The marker is a lease: shared by every process,
renewed while the erasure runs, and expired by itself ``lock_ttl`` seconds after an
erasing process died.
"""

from __future__ import annotations

import asyncio
import time

from core.db.base import BaseDb
from core.exceptions import LockTimeoutError

__all__ = ["DEFAULT_WAIT", "wait_for_runs_in_flight"]

#: seconds to wait for runs in flight when the store names no lock timeout
DEFAULT_WAIT = 60.0
_POLL = 0.05


async def wait_for_runs_in_flight(db: BaseDb, timeout: float | None = None) -> int:
    """Wait until every run lease held now has been released (or expired); how many
    there were. A lease taken later is not waited for: its run checks the marker.

    LockTimeoutError when some are still held after ``timeout`` (default: the store's
    ``lock_timeout``): a run that hangs holds its lease no longer than its deadline.
    """
    wait = timeout if timeout is not None else (db.lock_timeout or DEFAULT_WAIT)
    started = time.monotonic()
    held = await db.aheld_leases()
    count = len(held)
    # a listing may be a SCAN of a large Redis: never spend more than a third of the
    # wait listing
    pause = max(_POLL, 2 * (time.monotonic() - started))
    deadline = started + wait
    while held:
        if time.monotonic() > deadline:
            raise LockTimeoutError(
                f"{len(held)} run(s) in flight still held their sessions after {wait:g} s, "
                "so their saves may land after this erasure"
            )
        await asyncio.sleep(pause)
        now = await db.aheld_leases()
        # a lease that changed hands was let go by the run in flight
        held = {name: token for name, token in held.items() if now.get(name) == token}
    return count
