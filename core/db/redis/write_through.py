"""Write-through: a save returns only once the durable store holds it, or says the truth.

After the Redis save, the new version is copied to the durable store and retired from
the dirty set. The caller is told what really happened:

* durable commit done (even if retiring the dirty entry then fails): success;
* the durable store refused or failed *before* committing: the Redis save is undone
  (guarded by its version and save id) and StoreUnavailableError says nothing was
  written, so a retry cannot apply the change twice;
* the commit's outcome is unknown (the connection broke during COMMIT): the upsert is
  retried, which is idempotent (same version and save id is a no-op); if it still
  cannot be confirmed, the change is applied in Redis and stays dirty for the
  snapshotter, and an error is logged. The save reports success: it *is* applied.
* the durable store does not answer within the save's budget (a blackholed network
  answers nothing, and a socket would wait far past any run deadline): the same as
  unknown. The write is abandoned (``bounded.py``: it finishes or fails in the
  background; a late commit of the same version and save id is what the snapshotter
  would write anyway), the Redis save stands as the live state, stays dirty, and the
  save reports success.

The budget is ``durable_timeout``, and never more than half of what is left of the
run's deadline (``Lease.renew_until``), so the save, and the run, end inside it.
"""

from __future__ import annotations

import time

from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from core.db.protocols import SnapshotTarget
from core.db.records import SessionRecord
from core.db.redis.bounded import bounded
from core.db.redis.client import RedisClients
from core.db.redis.dirty import DirtyQueue
from core.db.redis.keys import SessionKeys
from core.db.redis.scripts import LuaScript
from core.exceptions import OutcomeUnknownError, StoreUnavailableError
from core.utils.log import log_error, log_warning

# Undo one save, if it is still the current one. KEYS: state meta hist index dirty data
# ARGV: version save_id hash. The newest undo record holds what the save replaced (an
# appending save: the data log's length before it, ``data_log.py``).
# Returns 1 undone, 0 the session moved on, -1 no undo record for that save.
UNDO = LuaScript(
    r"""
local meta = KEYS[2]
if redis.call('HGET', meta, 'v') ~= ARGV[1] or redis.call('HGET', meta, 'save') ~= ARGV[2] then
  return 0
end
local raw = redis.call('LINDEX', KEYS[3], 0)
if not raw then return -1 end
local undo = cjson.decode(raw)
if tostring(undo['v']) ~= ARGV[1] then return -1 end
if undo['n'] then
  redis.call('DEL', KEYS[1], meta, KEYS[3], KEYS[6])
  redis.call('ZREM', KEYS[4], ARGV[3])
  redis.call('SREM', KEYS[5], ARGV[3])
  return 1
end
for key, previous in pairs(undo['o']) do
  if previous == false then redis.call('HDEL', KEYS[1], key)
  else redis.call('HSET', KEYS[1], key, previous) end
end
if undo['d'] then
  if undo['d'] == '' then redis.call('DEL', KEYS[6]) else redis.call('SET', KEYS[6], undo['d']) end
elseif undo['dl'] then  -- an append: the log as it was before it
  if undo['dl'] == 0 then redis.call('DEL', KEYS[6])
  else redis.call('SET', KEYS[6], redis.call('GETRANGE', KEYS[6], 0, undo['dl'] - 1)) end
end
redis.call('LPOP', KEYS[3])
redis.call('HSET', meta, 'v', tonumber(ARGV[1]) - 1, 'save', undo['s'] or '',
  'sum', undo['b'] or '0')
return 1
"""
)

#: confirming an unknown commit: 3 more tries over about a second
_CONFIRM = AsyncRetrying(
    retry=retry_if_exception_type(OutcomeUnknownError),
    stop=stop_after_attempt(3),
    wait=wait_exponential(multiplier=0.1, max=0.5),
    reraise=True,
)


def durable_budget(limit: float, renew_until: float | None) -> float:
    """Seconds the durable write may take: ``limit``, and at most half of what is left
    of the run's deadline (a ``time.monotonic()`` instant), so the save ends inside it."""
    if renew_until is None:
        return limit
    return max(0.0, min(limit, (renew_until - time.monotonic()) / 2))


async def copy_through(
    clients: RedisClients,
    dirty: DirtyQueue,
    durable: SnapshotTarget,
    keys: SessionKeys,
    version: int,
    save_id: str,
    budget: float,
) -> None:
    """Copy the save ``(version, save_id)`` to ``durable`` within ``budget`` seconds;
    raise only if it was undone."""
    record = (await dirty.read([keys.hashed], keys.bucket.bucket)).get(keys.hashed)
    if record is None or record.save_id != save_id:
        return  # moved on already; the newer save (or the snapshotter) copies it
    try:
        await bounded(_upsert(durable, record), budget)
    except TimeoutError:
        log_error(
            "durable write did not answer in time",
            session_id=keys.session_id,
            version=version,
            seconds=round(budget, 3),
            outcome="applied: the change is the live state in Redis and stays dirty; the "
            "snapshotter copies it once the durable store answers",
        )
        return
    except OutcomeUnknownError as exc:
        log_error(
            "durable write not confirmed; the change is applied in Redis and stays "
            "dirty for the snapshotter",
            session_id=keys.session_id,
            version=version,
            error=str(exc),
        )
        return
    except Exception as exc:
        if await _undo(clients, keys, version, save_id):
            raise StoreUnavailableError(
                f"session {keys.session_id!r}: the durable store failed ({exc}), so the "
                "change was undone; nothing was written"
            ) from exc
        log_error(
            "durable write failed and the Redis save could not be undone; it is applied "
            "in Redis and stays dirty for the snapshotter",
            session_id=keys.session_id,
            version=version,
            error=str(exc),
        )
        return
    try:
        await dirty.amark_clean([record])
    except Exception as exc:  # durable already: the snapshotter retires it later
        log_warning("could not retire a written-through session", error=str(exc))


async def _upsert(durable: SnapshotTarget, record: SessionRecord) -> None:
    """The upsert; an unknown commit is retried (idempotent) before it counts as unknown."""
    try:
        await durable.aupsert_snapshot(record)
    except OutcomeUnknownError:
        await _CONFIRM(durable.aupsert_snapshot, record)


async def _undo(clients: RedisClients, keys: SessionKeys, version: int, save_id: str) -> bool:
    try:
        with clients.unavailable(f"undo a save of session {keys.session_id!r}"):
            result = await UNDO(
                clients.get(),
                [
                    keys.state,
                    keys.meta,
                    keys.hist,
                    keys.bucket.index,
                    keys.bucket.dirty,
                    keys.data,
                ],
                [version, save_id, keys.hashed],
            )
    except StoreUnavailableError:
        return False
    return int(result) == 1
