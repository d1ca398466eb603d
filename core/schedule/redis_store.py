"""Schedules in Redis: a sorted set by due time per bucket, a hash per schedule.

Keys share the session's hash tag (its bucket, see ``core/db/redis/keys.py``), so a
schedule, its bucket's due set, its session's set of schedule ids and the session's
lease key all live in one Redis Cluster slot and one script changes them together::

    {prefix}{b<bucket>}:sched:<id>          hash  the schedule's fields
    {prefix}{b<bucket>}:sched:due           zset  schedule id -> due_at
    {prefix}{b<bucket>}:s:<hash>:sched      set   the session's schedule ids

A change is the CAS script: it checks the lease token (fencing) and the stored
``rev``, then rewrites the hash and its due-set entry. Polling reads the 256 due
sets in one pipeline (single-key commands, so a cluster client splits it by node).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from redis.asyncio.cluster import RedisCluster

from core.db.records import Lease
from core.db.redis.keys import BUCKETS, BucketKeys, SessionKeys
from core.db.redis.scripts import LuaScript
from core.db.redis.store import RedisDb
from core.exceptions import LeaseLostError
from core.schedule.errors import ScheduleLimitError
from core.schedule.model import Schedule, Status
from core.schedule.store import ScheduleStore

# KEYS: hash due set lease  ARGV: expected_rev ('0' absent, '*' any, '<N' anything
# older than N) token op id score limit fields...
# Returns 1 written, 0 Redis holds a newer revision, 2 an older one (or none: Redis is
# behind), -1 lease lost, -2 session full.
_CAS = LuaScript(
    r"""
if ARGV[2] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[2] then return -1 end
local rev = redis.call('HGET', KEYS[1], 'rev') or '0'
if string.sub(ARGV[1], 1, 1) == '<' then
  if tonumber(rev) >= tonumber(string.sub(ARGV[1], 2)) then return 0 end
elseif ARGV[1] ~= '*' and rev ~= ARGV[1] then
  if tonumber(rev) < tonumber(ARGV[1]) then return 2 end
  return 0
end
if ARGV[6] ~= '' and rev == '0' and redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[6]) then
  return -2
end
redis.call('DEL', KEYS[1])
if ARGV[3] == 'del' then
  redis.call('ZREM', KEYS[2], ARGV[4])
  redis.call('SREM', KEYS[3], ARGV[4])
else
  redis.call('HSET', KEYS[1], unpack(ARGV, 7))
  redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
  redis.call('SADD', KEYS[3], ARGV[4])
end
return 1
"""
)

# KEYS: set due hash... (one per id)  ARGV: ids. Erases those schedules; returns how many.
_ERASE = LuaScript(
    r"""
local erased = 0
for i, id in ipairs(ARGV) do
  erased = erased + redis.call('DEL', KEYS[i + 2])
  redis.call('ZREM', KEYS[2], id)
  redis.call('SREM', KEYS[1], id)
end
return erased
"""
)

# KEYS: due hash  ARGV: id. Drops an index entry whose schedule hash is gone.
_DROP_ORPHAN = LuaScript(
    r"""
if redis.call('EXISTS', KEYS[2]) == 0 then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""
)

_FIELDS = (
    "schedule_id",
    "session_id",
    "input",
    "nominal_at",
    "due_at",
    "kind",
    "tz",
    "target",
    "status",
    "attempts",
    "rev",
    "claim_token",
    "cancel",
    "last_error",
    "created_at",
)


def _flat(schedule: Schedule) -> list[str]:
    """The hash fields as a flat field/value list (None-valued fields left out)."""
    fields: dict[str, str] = {
        "schedule_id": schedule.schedule_id,
        "session_id": schedule.session_id,
        "input": schedule.input,
        "nominal_at": repr(schedule.nominal_at),
        "due_at": repr(schedule.due_at),
        "kind": schedule.kind,
        "tz": schedule.tz,
        "target": schedule.target_text,
        "status": schedule.status.value,
        "attempts": str(schedule.attempts),
        "rev": str(schedule.rev),
        "claim_token": schedule.claim_token,
        "cancel": "1" if schedule.cancel_requested else "0",
        "last_error": schedule.last_error,
        "created_at": repr(schedule.created_at),
    }
    for name in ("owner_id", "user_id", "cron"):
        value = getattr(schedule, name)
        if value is not None:
            fields[name] = value
    return [item for pair in fields.items() for item in pair]


def _from_hash(fields: dict[str, str]) -> Schedule | None:
    if not fields or any(name not in fields for name in _FIELDS):
        return None  # an index entry whose hash is gone (erased meanwhile)
    return Schedule(
        schedule_id=fields["schedule_id"],
        session_id=fields["session_id"],
        input=fields["input"],
        nominal_at=float(fields["nominal_at"]),
        due_at=float(fields["due_at"]),
        owner_id=fields.get("owner_id"),
        kind=fields["kind"],
        user_id=fields.get("user_id"),
        tz=fields["tz"],
        cron=fields.get("cron"),
        target_text=fields["target"],
        status=Status(fields["status"]),
        attempts=int(fields["attempts"]),
        rev=int(fields["rev"]),
        claim_token=fields["claim_token"],
        cancel_requested=fields["cancel"] == "1",
        last_error=fields["last_error"],
        created_at=float(fields["created_at"]),
    )


def _cas_call(
    keys: ScheduleKeys,
    expected: str,
    token: str,
    new: Schedule | None,
    schedule_id: str,
    limit: int | None,
) -> tuple[list[str], list[str]]:
    """(KEYS, ARGV) of one CAS script call."""
    op, score, fields = ("del", "0", []) if new is None else ("put", repr(new.due_at), _flat(new))
    args = [expected, token, op, schedule_id, score, "" if limit is None else str(limit)]
    return [keys.hash, keys.due, keys.session_set, keys.lease], [*args, *fields]


class ScheduleKeys:
    """The keys of one schedule (and of its session and bucket)."""

    __slots__ = ("due", "hash", "lease", "session_set")

    def __init__(self, prefix: str, session_id: str, schedule_id: str) -> None:
        session = SessionKeys(prefix, session_id)
        self.hash = f"{session.bucket.tag}:sched:{schedule_id}"
        self.due = f"{session.bucket.tag}:sched:due"
        self.session_set = f"{session.base}:sched"
        self.lease = session.lease


class RedisScheduleStore(ScheduleStore):
    """The schedules of one RedisDb, in its Redis (through its connections)."""

    __slots__ = ("_db",)

    def __init__(self, db: RedisDb) -> None:
        self._db = db

    def __repr__(self) -> str:
        return f"RedisScheduleStore({self._db.location!r}, prefix={self._db.key_prefix!r})"

    def _client(self) -> Any:
        """The running loop's client (a cluster client when the URL names a cluster)."""
        return self._db.clients.get()

    def _keys(self, session_id: str, schedule_id: str) -> ScheduleKeys:
        return ScheduleKeys(self._db.key_prefix, session_id, schedule_id)

    async def _cas(
        self,
        keys: ScheduleKeys,
        expected: str,
        token: str,
        new: Schedule | None,
        schedule_id: str,
        limit: int | None = None,
    ) -> int:
        script_keys, args = _cas_call(keys, expected, token, new, schedule_id, limit)
        clients = self._db.clients
        with clients.unavailable(f"change schedule {schedule_id!r}"):
            reply = await _CAS(self._client(), script_keys, args)
        return int(reply)

    async def aadd(self, schedule: Schedule, *, max_per_session: int) -> None:
        keys = self._keys(schedule.session_id, schedule.schedule_id)
        result = await self._cas(keys, "0", "", schedule, schedule.schedule_id, max_per_session)
        if result == -2:
            raise ScheduleLimitError(schedule.session_id, max_per_session)

    async def amirror(self, schedule_id: str, session_id: str, stored: Schedule | None) -> None:
        """Make Redis hold exactly ``stored`` (None: nothing) for this schedule."""
        await self._cas(self._keys(session_id, schedule_id), "*", "", stored, schedule_id)

    async def acatch_up_many(self, rows: list[Schedule]) -> None:
        """:meth:`acatch_up` for many schedules in one pipeline (an index rebuild)."""
        if not rows:
            return
        client = self._client()
        if isinstance(client, RedisCluster):
            # a cluster client refuses scripts in a pipeline: run them side by side
            await asyncio.gather(*(self.acatch_up(row) for row in rows))
            return
        with self._db.clients.unavailable("rebuild the schedule index"):
            await client.script_load(_CAS.source)  # EVALSHA in a pipeline has no fallback
            async with client.pipeline(transaction=False) as pipe:
                for row in rows:
                    keys = self._keys(row.session_id, row.schedule_id)
                    script_keys, args = _cas_call(
                        keys, f"<{row.rev}", "", row, row.schedule_id, None
                    )
                    pipe.evalsha(_CAS.sha, len(script_keys), *script_keys, *args)
                await pipe.execute()

    async def acatch_up(self, stored: Schedule) -> bool:
        """Write ``stored`` only where Redis holds an older revision or none: a newer one
        is a change on its way to the durable store, which a resync must not undo."""
        keys = self._keys(stored.session_id, stored.schedule_id)
        return await self._cas(keys, f"<{stored.rev}", "", stored, stored.schedule_id) == 1

    async def aget(self, session_id: str, schedule_id: str) -> Schedule | None:
        keys = self._keys(session_id, schedule_id)
        clients = self._db.clients
        with clients.unavailable(f"read schedule {schedule_id!r}"):
            return _from_hash(cast(dict[str, str], await self._client().hgetall(keys.hash)))

    async def _load(self, hash_keys: list[str]) -> list[Schedule | None]:
        if not hash_keys:
            return []
        clients = self._db.clients
        with clients.unavailable("read schedules"):
            async with self._client().pipeline(transaction=False) as pipe:
                for key in hash_keys:
                    pipe.hgetall(key)
                replies = await pipe.execute()
        return [_from_hash(reply) for reply in replies]

    async def alist(self, session_id: str) -> list[Schedule]:
        session_set = self._keys(session_id, "-").session_set
        clients = self._db.clients
        with clients.unavailable(f"list the schedules of session {session_id!r}"):
            ids = sorted(await self._client().smembers(session_set))
        loaded = await self._load([self._keys(session_id, i).hash for i in ids])
        found = [s for s in loaded if s is not None]
        return sorted(found, key=lambda s: (s.nominal_at, s.schedule_id))

    async def adue(self, now: float, limit: int) -> list[Schedule]:
        prefix = self._db.key_prefix
        buckets = [BucketKeys(prefix, b) for b in range(BUCKETS)]
        clients = self._db.clients
        with clients.unavailable("poll due schedules"):
            async with self._client().pipeline(transaction=False) as pipe:
                for bucket in buckets:
                    pipe.zrangebyscore(
                        f"{bucket.tag}:sched:due",
                        "-inf",
                        repr(now),
                        start=0,
                        num=limit,
                        withscores=True,
                    )
                replies = await pipe.execute()
        entries = [
            (score, f"{bucket.tag}:sched:due", member)
            for bucket, reply in zip(buckets, replies, strict=True)
            for member, score in reply
        ]
        entries.sort()
        entries = entries[:limit]
        loaded = await self._load([f"{due[: -len('due')]}{member}" for _, due, member in entries])
        orphans = [
            (due, member) for (_, due, member), s in zip(entries, loaded, strict=True) if s is None
        ]
        with clients.unavailable("drop stale schedule index entries"):
            for due, member in orphans:  # the schedule was erased meanwhile
                hash_key = f"{due[: -len('due')]}{member}"
                await _DROP_ORPHAN(self._client(), [due, hash_key], [member])
        return [s for s in loaded if s is not None]

    async def acas(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool:
        return await self.acas_or_behind(old, new, lease=lease) is True

    async def acas_or_behind(
        self, old: Schedule, new: Schedule | None, *, lease: Lease | None = None
    ) -> bool | None:
        """:meth:`acas`, telling apart a refusal because Redis is behind (None) from one
        because it moved on (False)."""
        keys = self._keys(old.session_id, old.schedule_id)
        token = lease.token if lease is not None else ""
        result = await self._cas(keys, str(old.rev), token, new, old.schedule_id)
        if result == -1:
            raise LeaseLostError(old.session_id, old.rev)
        return None if result == 2 else result == 1

    async def adelete_for_session(self, session_id: str) -> int:
        probe = self._keys(session_id, "-")
        clients = self._db.clients
        erased = 0
        with clients.unavailable(f"erase the schedules of session {session_id!r}"):
            while ids := sorted(await self._client().smembers(probe.session_set)):
                hashes = [self._keys(session_id, i).hash for i in ids]
                keys: list[Any] = [probe.session_set, probe.due, *hashes]
                erased += int(await _ERASE(self._client(), keys, ids))
        return erased
