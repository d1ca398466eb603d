"""The dirty sets: which sessions changed since their last snapshot, read per bucket.

Implements the snapshotter's source protocol (:class:`core.db.snapshot.DirtySource`):
take a batch of dirty sessions (read atomically per bucket), and after the durable
commit drop each one from its dirty set only if its version did not move meanwhile.
"""

from __future__ import annotations

import functools
import json
import time
from collections import defaultdict
from collections.abc import Collection, Iterable
from typing import Literal

from core.db.cipher import StateCipher
from core.db.records import QuarantineEntry, SessionRecord
from core.db.redis import scripts
from core.db.redis.batch import Call, Group, run_grouped, run_scripts
from core.db.redis.client import RedisClients
from core.db.redis.keys import BUCKETS, BucketKeys, SessionKeys, bucket_of, session_hash
from core.db.redis.records import record_from_hashes
from core.db.redis.scripts import LuaScript
from core.db.snapshot import CleanResult
from core.exceptions import DamagedDataError, StateDecryptError
from core.utils.log import log_error

# Read sessions of one bucket atomically, as ONE JSON text: [[state, meta, data], ...]
# with state and meta as flat [field, value, ...] lists. KEYS: (state, meta, data) per
# session. Field values come back exactly as stored (JSON strings round-trip any text).
READ_PACKED = LuaScript(
    r"""
local out = {}
for i = 1, #KEYS, 3 do
  out[#out + 1] = {
    redis.call('HGETALL', KEYS[i]),
    redis.call('HGETALL', KEYS[i + 1]),
    redis.call('GET', KEYS[i + 2]) or ''
  }
end
return cjson.encode(out)
"""
)

# Pick up to ``want`` dirty sessions of one bucket, skipping the excluded ones (in flight
# or backing off), and read them atomically: [left, [[hash, state, meta, data], ...]]
# where ``left`` counts the bucket's other pickable members, state is a flat [field,
# value, ...] list and meta the values of _META_FIELDS (false where absent). A member
# whose session is gone (deleted or expired while dirty) leaves the dirty set: nothing
# to copy. The session keys are built here from the bucket's key base: they share the
# slot of the bucket's dirty set (one hash tag).
# Groups (batch.run_grouped), one per bucket: KEYS dirty quarantine, ARGV base
# ("<tag>:s:") want excluded (a JSON list of hashes: one argument, not one per hash,
# since packing arguments is what costs in redis-py). Returns ONE JSON text.

#: the meta fields a record is made of (``records.record_from_hashes``), ``v`` first
_META_FIELDS = ("v", "id", "kind", "owner", "user", "created", "updated", "save", "ep")

PICK_READ = LuaScript(
    "local META_FIELDS = {"
    + ", ".join(f"'{f}'" for f in _META_FIELDS)
    + "}\n"
    + r"""
local function pick(dirty, quarantine, base, want, excluded)
  local skip, skipped = {}, 0
  for _, h in ipairs(cjson.decode(excluded)) do
    if redis.call('SISMEMBER', dirty, h) == 1 then
      skip[h] = true
      skipped = skipped + 1
    end
  end
  local out = {}
  for _, h in ipairs(redis.call('SRANDMEMBER', dirty, want + skipped)) do
    if #out >= want then break end
    if not skip[h] then
      local s = base .. h
      local meta = redis.call('HMGET', s .. ':meta', unpack(META_FIELDS))
      if meta[1] then
        local state = redis.call('HGETALL', s .. ':state')
        out[#out + 1] = {h, state, meta, redis.call('GET', s .. ':data') or ''}
      else
        redis.call('SREM', dirty, h)
        redis.call('HDEL', quarantine, h)
      end
    end
  end
  return {redis.call('SCARD', dirty) - skipped - #out, out}
end
local groups = {}
for g = 0, #KEYS / 2 - 1 do
  groups[#groups + 1] = pick(
    KEYS[2 * g + 1], KEYS[2 * g + 2], ARGV[3 * g + 1], tonumber(ARGV[3 * g + 2]), ARGV[3 * g + 3]
  )
end
return cjson.encode(groups)
"""
)

# Leave the dirty set only if the version (and the save that made it) did not move;
# the session keys are built from the bucket's key base, as in PICK_READ.
# Groups, one per bucket: KEYS dirty quarantine, ARGV base and a JSON list
# [hash, version, save_id, ...]. Returns ONE JSON text: per group, per session, 1
# clean, 0 moved on (stays dirty), 2 deleted meanwhile.
RETIRE = LuaScript(
    r"""
local function retire(dirty, quarantine, base, entries)
  local out = {}
  for i = 1, #entries, 3 do
    local h, v, save = entries[i], entries[i + 1], entries[i + 2]
    local s = base .. h
    local meta = s .. ':meta'
    local cur = redis.call('HGET', meta, 'v')
    if cur == v and (save == '' or redis.call('HGET', meta, 'save') == save) then
      redis.call('SREM', dirty, h)
      redis.call('HDEL', quarantine, h)
      local ttl = tonumber(redis.call('HGET', meta, 'ttl') or '0')
      if ttl > 0 then
        for _, key in ipairs({s .. ':state', meta, s .. ':hist', s .. ':data'}) do
          redis.call('PEXPIRE', key, ttl)
        end
      end
      out[#out + 1] = 1
    elseif not cur then
      redis.call('SREM', dirty, h)
      redis.call('HDEL', quarantine, h)
      out[#out + 1] = redis.call('EXISTS', s .. ':gone') == 1 and 2 or 1
    else
      out[#out + 1] = 0
    end
  end
  return out
end
local groups = {}
for g = 0, #KEYS / 2 - 1 do
  groups[#groups + 1] = retire(
    KEYS[2 * g + 1], KEYS[2 * g + 2], ARGV[2 * g + 1], cjson.decode(ARGV[2 * g + 2])
  )
end
return cjson.encode(groups)
"""
)


class DirtyQueue:
    """Batches of dirty sessions and the compare-and-remove that retires them."""

    __slots__ = ("_bases", "_buckets", "_cipher", "_clients", "_prefix", "_start")

    def __init__(
        self, clients: RedisClients, prefix: str, cipher: StateCipher | None = None
    ) -> None:
        self._clients = clients
        self._prefix = prefix
        self._cipher = cipher  # reads sealed data logs (data_log.py)
        self._buckets = [BucketKeys(prefix, b) for b in range(BUCKETS)]
        # what a session's keys start with, per bucket (keys.py: "<tag>:s:<hash>:...")
        self._bases = [f"{bucket.tag}:s:" for bucket in self._buckets]
        self._start = 0  # where the next batch's uneven shares begin (rotates: no bucket waits)

    async def count(self) -> int:
        """Sessions waiting for a snapshot."""
        with self._clients.unavailable("count dirty sessions"):
            pipe = self._clients.client().pipeline(transaction=False)
            for bucket in self._buckets:
                pipe.scard(bucket.dirty)
            return sum(await pipe.execute())

    async def abatch(self, limit: int, exclude: Collection[str] = ()) -> list[SessionRecord]:
        """Up to ``limit`` dirty sessions not in ``exclude`` (session ids), each read atomically.

        Each bucket picks and reads its share atomically (``PICK_READ``, grouped by
        ``run_grouped``), one round trip per node. The shares are spread evenly from a
        rotating start; when some buckets had fewer, a second round takes the rest from
        those that have more (each bucket says how many it has left, so two rounds
        suffice unless the dirty sets change meanwhile). Only the picked sessions cross
        the wire, never the whole dirty set.
        """
        skip: dict[int, list[str]] = defaultdict(list)
        for session_id in exclude:
            h = _hash(session_id)
            skip[bucket_of(h)].append(h)
        share, extra = divmod(limit, BUCKETS)
        start, self._start = self._start, (self._start + extra) % BUCKETS
        want = {b: share + (1 if (b - start) % BUCKETS < extra else 0) for b in range(BUCKETS)}
        found: list[SessionRecord] = []
        while True:
            groups: list[Group] = [
                (
                    [self._buckets[b].dirty, self._buckets[b].quarantine],
                    [self._bases[b], n, json.dumps(skip[b])],
                )
                for b, n in want.items()
            ]
            with self._clients.unavailable("read dirty sessions"):
                replies = await run_grouped(
                    self._clients.client(), PICK_READ, groups, cluster=self._clients.is_cluster
                )
            more: dict[int, int] = {}
            for b, (left, rows) in zip(want, replies, strict=True):
                for h, state, values, data in rows:
                    skip[b].append(h)  # taken: not again in a later round
                    meta = {
                        f: v for f, v in zip(_META_FIELDS, values, strict=True) if v is not False
                    }
                    record = (
                        _readable(
                            meta["id"],
                            _pairs(state) if state else {},
                            meta,
                            data,
                            self._cipher,
                        )
                        if "id" in meta
                        else None
                    )
                    if record is not None:
                        found.append(record)
                if left > 0:
                    more[b] = left
            need = limit - len(found)
            if need <= 0 or not more:
                return found[:limit]
            want = _shares(need, more)

    async def read(self, hashes: list[str], bucket: int) -> dict[str, SessionRecord]:
        """Records of hashed sessions of one bucket, read in one script."""
        return await self.read_many({bucket: hashes})

    async def read_many(self, picked: dict[int, list[str]]) -> dict[str, SessionRecord]:
        """Records of hashed sessions: one atomic read per bucket, one round trip per node.

        Each bucket's reply is one JSON text (``READ_PACKED``), decoded by one C call:
        parsing ~30 reply elements per session in redis-py's Python parser cost
        several times more than the whole read.
        """
        calls: list[Call] = []
        groups: list[list[str]] = []
        for hashes in picked.values():
            flat: list[str] = []
            for h in hashes:
                base = f"{self._buckets[bucket_of(h)].tag}:s:{h}"
                flat += [f"{base}:state", f"{base}:meta", f"{base}:data"]
            calls.append((READ_PACKED, flat, []))
            groups.append(hashes)
        with self._clients.unavailable("read sessions"):
            replies = await run_scripts(self._clients.client(), calls)
        found: dict[str, SessionRecord] = {}
        for hashes, reply in zip(groups, replies, strict=True):
            # an empty Lua table encodes as {}: no fields
            for h, (state, meta, data) in zip(hashes, json.loads(reply), strict=True):
                record = _record(state, meta, data, self._cipher)
                if record is not None:
                    found[h] = record
        return found

    async def amark_clean(self, records: Iterable[SessionRecord]) -> list[CleanResult]:
        """Drop sessions from their dirty set if their version is still the snapshotted one.

        ``RETIRE`` per bucket (``run_grouped``: several buckets per call on one server),
        one round trip per node.
        """
        items = list(records)
        by_bucket: dict[int, list[int]] = defaultdict(list)
        entries: dict[int, list[str]] = defaultdict(list)
        for i, record in enumerate(items):
            h = _hash(record.session_id)
            b = bucket_of(h)
            by_bucket[b].append(i)
            entries[b] += (h, str(record.version), record.save_id)
        groups: list[Group] = [
            (
                [self._buckets[b].dirty, self._buckets[b].quarantine],
                [self._bases[b], json.dumps(entries[b])],
            )
            for b in by_bucket
        ]
        with self._clients.unavailable("mark sessions clean"):
            replies = await run_grouped(
                self._clients.client(), RETIRE, groups, cluster=self._clients.is_cluster
            )
        codes = [0] * len(items)
        for idx, reply in zip(by_bucket.values(), replies, strict=True):
            for i, code in zip(idx, reply, strict=True):
                codes[i] = int(code)
        return [CleanResult(r, _OUTCOMES[c]) for r, c in zip(items, codes, strict=True)]

    async def aquarantine(self, record: SessionRecord, reason: str) -> bool:
        """Park a session the durable store keeps refusing; False if it moved on meanwhile."""
        keys = SessionKeys(self._prefix, record.session_id)
        entry = json.dumps(
            {
                "session_id": record.session_id,
                "version": record.version,
                "reason": reason,
                "at": time.time(),
            },
            ensure_ascii=False,
        )
        with self._clients.unavailable(f"quarantine session {record.session_id!r}"):
            parked = await scripts.QUARANTINE(
                self._clients.get(),
                [keys.bucket.dirty, keys.bucket.quarantine, keys.meta],
                [keys.hashed, str(record.version), entry],
            )
        return bool(parked)

    async def quarantined(self) -> list[QuarantineEntry]:
        """Sessions parked because the durable store refused them, oldest first."""
        with self._clients.unavailable("list quarantined sessions"):
            pipe = self._clients.client().pipeline(transaction=False)
            for bucket in self._buckets:
                pipe.hvals(bucket.quarantine)
            replies: list[list[str]] = await pipe.execute()
        entries = [QuarantineEntry(**json.loads(raw)) for reply in replies for raw in reply]
        return sorted(entries, key=lambda e: e.at)

    async def list_recent(self, *, owner_id: str | None, limit: int) -> list[SessionRecord]:
        """Sessions in Redis, most recently updated first (expired ones skipped)."""
        with self._clients.unavailable("list sessions"):
            pipe = self._clients.client().pipeline(transaction=False)
            for bucket in self._buckets:
                pipe.zrevrange(bucket.index, 0, -1 if owner_id else limit - 1, withscores=True)
            replies = await pipe.execute()
        ranked: list[tuple[float, str]] = []
        for reply in replies:
            ranked.extend((score, h) for h, score in reply)
        ranked.sort(reverse=True)
        out: list[SessionRecord] = []
        for start in range(0, len(ranked), 200):
            chunk = ranked[start : start + 200]
            grouped: dict[int, list[str]] = defaultdict(list)
            for _, h in chunk:
                grouped[bucket_of(h)].append(h)
            found = await self.read_many(grouped)
            for _, h in chunk:
                record = found.get(h)
                if record is None:
                    continue
                if owner_id is None or record.owner_id == owner_id:
                    out.append(record)
                if len(out) >= limit:
                    return out
        return out


def _shares(need: int, left: dict[int, int]) -> dict[int, int]:
    """``need`` sessions spread over buckets holding ``left`` each: even shares, and
    what the small buckets cannot give taken from the larger ones (water-filling)."""
    shares: dict[int, int] = {}
    ranked = sorted(left.items(), key=lambda item: item[1])
    for rank, (bucket, available) in enumerate(ranked):
        if need <= 0:
            break
        shares[bucket] = min(available, -(-need // (len(ranked) - rank)))
        need -= shares[bucket]
    return shares


#: the snapshotter names the same sessions in flight and when retiring them, pass after
#: pass: hashing each once saves a tenth of the drain's CPU
_hash = functools.lru_cache(maxsize=1 << 16)(session_hash)

_OUTCOMES: dict[int, Literal["clean", "moved", "deleted"]] = {1: "clean", 0: "moved", 2: "deleted"}


def _record(
    state: list[str], meta_flat: list[str], data: str, cipher: StateCipher | None
) -> SessionRecord | None:
    """A record from a packed reply's flat hashes (an empty Lua table encodes as ``{}``)."""
    meta = _pairs(meta_flat) if meta_flat else {}
    if "id" not in meta:
        return None
    return _readable(meta["id"], _pairs(state) if state else {}, meta, data, cipher)


def _readable(
    session_id: str,
    state: dict[str, str],
    meta: dict[str, str],
    data: str,
    cipher: StateCipher | None,
) -> SessionRecord | None:
    """The record to snapshot (epoch: the incarnation that wrote it, which the durable
    store checks against its claim, core/db/sql/epochs.py); None, logged, when its
    data log holds sealed lines this process has no key for (it stays dirty for a
    process that has) or is damaged (it stays dirty, and the durable copy as it was,
    rather than be overwritten with what could be read)."""
    try:
        return record_from_hashes(session_id, state, meta, data, meta.get("ep", ""), cipher)
    except (StateDecryptError, DamagedDataError) as exc:
        log_error("snapshot_unreadable", session_id=session_id, error=str(exc))
        return None


def _pairs(flat: list[str]) -> dict[str, str]:
    return dict(zip(flat[::2], flat[1::2], strict=True))
