"""Usage counters in Redis: one hash per scope and UTC day, incremented with HINCRBY.

::

    {prefix}{u<hash>}:usage:<day>    hash   tokens, tool_calls   (expires 2 days later)

``<hash>`` is a BLAKE2b hash of the scope's kind and id (ids of any length or
character stay fixed-size and never collide or break the hash tag); the tag holds
it, so every day of one scope lives in one Redis Cluster slot. Recording a run is one
pipelined round trip for all its scopes (HINCRBY ×2 + EXPIRE per scope, single-key
commands, so a cluster client splits the pipeline by node); checking is one HMGET
pipeline.

Counters live in Redis only. A Redis that restarts without its data (or is flushed)
starts the day's counters again from zero: a deployment may then spend up to one more
day's budget that day. The durable store is not written, so a budget costs no SQL
write per run. See docs/budgets.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from core.db.redis.store import RedisDb
from core.governance.budgets.model import Scope, Usage
from core.governance.budgets.store import UsageStore

#: seconds a day's counters outlive their first write: the day, and a day's margin
#: for clocks that disagree a little and for ``statebot state usage`` of yesterday
EXPIRY = 2 * 86_400


def usage_key(prefix: str, scope: Scope, day: str) -> str:
    """The hash of one scope's counters of ``day``."""
    text = f"{scope.kind}\x00{scope.id}".encode("utf-8", "surrogatepass")
    hashed = hashlib.blake2b(text, digest_size=16).hexdigest()
    return f"{prefix}{{u{hashed}}}:usage:{day}"


class RedisUsageStore(UsageStore):
    """The usage counters of one RedisDb, beside its sessions (same prefix)."""

    __slots__ = ("_db",)

    def __init__(self, db: RedisDb) -> None:
        self._db = db

    def __repr__(self) -> str:
        return f"RedisUsageStore({self._db.location!r}, prefix={self._db.key_prefix!r})"

    def _client(self) -> Any:
        return self._db.clients.get()

    async def aread(self, scopes: Sequence[Scope], day: str) -> list[Usage]:
        if not scopes:
            return []
        with self._db.clients.unavailable("read usage counters"):
            async with self._client().pipeline(transaction=False) as pipe:
                for scope in scopes:
                    pipe.hmget(usage_key(self._db.key_prefix, scope, day), "tokens", "tool_calls")
                replies = await pipe.execute()
        return [Usage(int(tokens or 0), int(calls or 0)) for tokens, calls in replies]

    async def aadd(self, scopes: Sequence[Scope], day: str, usage: Usage) -> None:
        if not scopes or not usage:
            return
        with self._db.clients.unavailable("record usage counters"):
            async with self._client().pipeline(transaction=False) as pipe:
                for scope in scopes:
                    key = usage_key(self._db.key_prefix, scope, day)
                    pipe.hincrby(key, "tokens", usage.tokens)
                    pipe.hincrby(key, "tool_calls", usage.tool_calls)
                    pipe.expire(key, EXPIRY)
                await pipe.execute()

    async def aerase(self, scopes: Sequence[Scope], today: str) -> int:
        # a day's hash lives at most EXPIRY after its last write, made on that day or,
        # with a clock a little off, the next: these are every day that can still exist
        first = date.fromisoformat(today)
        days = [(first - timedelta(days=n)).isoformat() for n in range(-1, EXPIRY // 86_400 + 2)]
        keys = [usage_key(self._db.key_prefix, s, day) for s in scopes for day in days]
        if not keys:
            return 0
        with self._db.clients.unavailable("erase usage counters"):
            async with self._client().pipeline(transaction=False) as pipe:
                for key in keys:  # one key per command: keys of one scope share a slot only
                    pipe.delete(key)
                return sum(await pipe.execute())
