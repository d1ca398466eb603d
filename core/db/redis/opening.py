"""Opening a run on Redis: the lease and the session in one round trip (the OPEN script).

The script also reads the erasure marker of the run's user and, where the session is
still exactly what the process holds, answers "unchanged" without the state.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from core.db.lease_holding import holding
from core.db.records import KnownVersion, OpenedRun
from core.db.redis import lease_scripts, loading
from core.db.redis.keys import SessionKeys
from core.db.user_blocks import marker_id
from core.exceptions import ErasureInProgressError

if TYPE_CHECKING:
    from core.db.redis.store import RedisDb

__all__ = ["open_run"]


@contextlib.asynccontextmanager
async def open_run(
    self: RedisDb,
    session_id: str,
    timeout: float | None,
    known: KnownVersion | None,
    user: str | None,
) -> AsyncIterator[OpenedRun]:
    """The lease and the session of ``RedisDb.open_run`` (ids already checked there)."""
    await self._check_server_once()
    keys = SessionKeys(self.key_prefix, session_id)
    wanted = ["", "", ""] if known is None else [known.version, known.save_id, known.epoch]
    lease, reply = await self.leases.acquire_with(
        session_id,
        timeout,
        lease_scripts.OPEN,
        [keys.state, keys.meta, keys.bucket.dirty, keys.data, keys.bucket.erasing],
        [keys.hashed, loading.verify(self), *wanted, "" if user is None else marker_id(user)],
    )
    if reply is not None:  # OPEN's reply ends with the run id, unless "unchanged"
        unchanged_reply = int(reply[1]) == loading.UNCHANGED
        lease.epoch = known.epoch if unchanged_reply and known else str(reply[-1])
    async with holding(self.leases, lease) as held:
        if user is not None and (
            int(reply[1]) == loading.ERASING
            if reply is not None  # else handed over as the wait timed out: ask apart
            else await self.auser_blocked(user)
        ):
            raise ErasureInProgressError(user)
        if reply is not None and int(reply[1]) == loading.UNCHANGED:
            yield OpenedRun(held, None, unchanged=True)
            return
        if reply is None:  # handed over as the wait timed out: load on its own
            record = await self._load_stored(session_id)
        else:
            loaded = loading.parse_load(keys, reply[1:], self.cipher)
            record = await loading.resolve(self, keys, loaded)
        unchanged = known is not None and known.matches(record)
        yield OpenedRun(held, self._opened(record), unchanged=unchanged)
