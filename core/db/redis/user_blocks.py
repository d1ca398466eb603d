"""Erasure markers in Redis (``core/db/user_blocks.py``): read by OPEN at no extra cost.

A marker is one field of a hash kept in **every bucket** (``{prefix}{b<n>}:erasing``,
field = the marker name, value = until when it holds, in ms of Redis's clock), so the
OPEN script of any session reads the marker of its run's user in its own slot, in the
round trip that takes the lease. The erasing process stamps all buckets, renews the
stamp every ``lock_ttl / 3`` seconds and deletes it at the end; if it dies the stamp
goes stale after ``lock_ttl`` and no run heeds it any more. A stamp only moves forward
(two erasures of one user keep the later one), an erasure deletes only its own stamp,
and every stamp prunes the stale fields of its bucket, so a dead process leaves no
field behind for long.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator

from core.db.lease_holding import holding
from core.db.records import Lease
from core.db.redis.client import RedisClients
from core.db.redis.keys import BUCKETS, BucketKeys
from core.db.redis.scripts import LuaScript

__all__ = ["RedisUserBlocks"]

_NOW = r"""
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: erasing  ARGV: marker ttl_ms. Stamps now + ttl (never backwards), prunes stale
# fields of the bucket; returns the stamp.
_STAMP = (
    _NOW
    + r"""
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  if tonumber(fields[i + 1]) <= now then redis.call('HDEL', KEYS[1], fields[i]) end
end
local until_ms = now + tonumber(ARGV[2])
local held = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if held > until_ms then return held end
redis.call('HSET', KEYS[1], ARGV[1], until_ms)
return until_ms
"""
)

# KEYS: erasing  ARGV: marker stamp. Deletes the marker if its stamp is still ours.
_UNSTAMP = r"""
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""

# KEYS: erasing  ARGV: marker. 1 while the marker holds.
_HELD = LuaScript(
    _NOW
    + r"""
local until_ms = redis.call('HGET', KEYS[1], ARGV[1])
if until_ms and tonumber(until_ms) > now then return 1 end
return 0
"""
)


class RedisUserBlocks:
    """Stamp, renew, check and delete erasure markers (a lease backend for ``holding``)."""

    __slots__ = ("_clients", "_keys", "_stamps", "lock_ttl")

    def __init__(self, clients: RedisClients, prefix: str, *, lock_ttl: float) -> None:
        self._clients = clients
        self._keys = [BucketKeys(prefix, b).erasing for b in range(BUCKETS)]
        self._stamps: dict[str, list[str]] = {}  # token -> our stamp in each bucket
        self.lock_ttl = lock_ttl

    async def _each(self, script: str, args_of: list[list[str | int]]) -> list[str]:
        """Run ``script`` on every bucket, pipelined (one batch per node)."""
        pipe = self._clients.get().pipeline(transaction=False)
        for key, args in zip(self._keys, args_of, strict=True):
            pipe.eval(script, 1, key, *args)
        return [str(int(v)) for v in await pipe.execute()]

    async def renew(self, lease: Lease, ttl: float | None = None) -> bool:
        ms = int((ttl or self.lock_ttl) * 1000)
        with self._clients.unavailable("block the runs of a user being erased"):
            stamps = await self._each(_STAMP, [[lease.session_id, ms]] * BUCKETS)
        self._stamps[lease.token] = stamps
        return True

    async def release(self, lease: Lease) -> bool:
        stamps = self._stamps.pop(lease.token, None)
        if stamps is None:
            return False
        with self._clients.unavailable("end the block on a user's runs"):
            await self._each(_UNSTAMP, [[lease.session_id, s] for s in stamps])
        lease.released = True
        return True

    @contextlib.asynccontextmanager
    async def hold(self, marker: str) -> AsyncIterator[Lease]:
        """Hold the marker for the block, renewed in the background."""
        lease = Lease(marker, uuid.uuid4().hex)
        await self.renew(lease)
        try:
            async with holding(self, lease) as held:
                yield held
        finally:
            self._stamps.pop(lease.token, None)

    async def held(self, marker: str) -> bool:
        """Whether the marker holds now (read in one bucket: all hold the same)."""
        with self._clients.unavailable("read the erasure markers"):
            return bool(await _HELD(self._clients.get(), [self._keys[0]], [marker]))
