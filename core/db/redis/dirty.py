"""The dirty sets: which sessions changed since their last snapshot, read per bucket.

Implements the snapshotter's source protocol (:class:`core.db.snapshot.DirtySource`):
take a batch of dirty sessions (read atomically per bucket), and after the durable
commit drop each one from its dirty set only if its version did not move meanwhile.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Literal

from core.db.base import QuarantineEntry, SessionRecord
from core.db.redis import scripts
from core.db.redis.batch import Call, run_scripts
from core.db.redis.client import RedisClients
from core.db.redis.keys import BUCKETS, BucketKeys, SessionKeys, bucket_of
from core.db.redis.records import record_from_hashes
from core.db.redis.scripts import LuaScript
from core.db.snapshot import CleanResult

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


class DirtyQueue:
    """Batches of dirty sessions and the compare-and-remove that retires them."""

    __slots__ = ("_buckets", "_clients", "_prefix")

    def __init__(self, clients: RedisClients, prefix: str) -> None:
        self._clients = clients
        self._prefix = prefix
        self._buckets = [BucketKeys(prefix, b) for b in range(BUCKETS)]

    async def count(self) -> int:
        """Sessions waiting for a snapshot."""
        with self._clients.unavailable("count dirty sessions"):
            pipe = self._clients.client().pipeline(transaction=False)
            for bucket in self._buckets:
                pipe.scard(bucket.dirty)
            return sum(await pipe.execute())

    async def abatch(self, limit: int) -> list[SessionRecord]:
        """Up to ``limit`` dirty sessions, each read atomically (state and meta agree)."""
        with self._clients.unavailable("list dirty sessions"):
            pipe = self._clients.client().pipeline(transaction=False)
            for bucket in self._buckets:
                pipe.srandmember(bucket.dirty, limit)
            members: list[list[str]] = await pipe.execute()
        picked: dict[int, list[str]] = {}
        total = 0
        for bucket, hashes in zip(self._buckets, members, strict=True):
            if hashes and total < limit:
                picked[bucket.bucket] = hashes[: limit - total]
                total += len(picked[bucket.bucket])
        found = await self.read_many(picked)
        missing = [h for hashes in picked.values() for h in hashes if h not in found]
        if missing:
            # deleted (or flushed) while dirty: nothing to copy, just retire the entry
            gone = [(SessionKeys(self._prefix, "", h), "", "") for h in missing]
            await self._compare_and_remove(gone)
        return list(found.values())

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
            for h, (state, meta_flat, data) in zip(hashes, json.loads(reply), strict=True):
                meta = _pairs(meta_flat) if meta_flat else {}
                if "id" in meta:
                    record = record_from_hashes(
                        meta["id"], _pairs(state) if state else {}, meta, data
                    )
                    if record is not None:
                        found[h] = record
        return found

    async def amark_clean(self, records: Iterable[SessionRecord]) -> list[CleanResult]:
        """Drop sessions from their dirty set if their version is still the snapshotted one."""
        items = list(records)
        entries = [
            (SessionKeys(self._prefix, r.session_id), str(r.version), r.save_id) for r in items
        ]
        codes = await self._compare_and_remove(entries)
        names: dict[int, Literal["clean", "moved", "deleted"]] = {
            1: "clean",
            0: "moved",
            2: "deleted",
        }
        return [CleanResult(r, names[c]) for r, c in zip(items, codes, strict=True)]

    async def _compare_and_remove(self, entries: list[tuple[SessionKeys, str, str]]) -> list[int]:
        by_bucket: dict[int, list[int]] = defaultdict(list)
        for i, (keys, _, _) in enumerate(entries):
            by_bucket[keys.bucket.bucket].append(i)
        calls: list[Call] = []
        for bucket_no, idx in by_bucket.items():
            bucket = self._buckets[bucket_no]
            keys_arg = [bucket.dirty, bucket.quarantine]
            args: list[object] = []
            for i in idx:
                keys, version, save_id = entries[i]
                keys_arg += [keys.meta, keys.state, keys.hist, keys.gone, keys.data]
                args += [keys.hashed, version, save_id]
            calls.append((scripts.MARK_CLEAN, keys_arg, args))
        with self._clients.unavailable("mark sessions clean"):
            replies = await run_scripts(self._clients.client(), calls)
        codes = [0] * len(entries)
        for idx, reply in zip(by_bucket.values(), replies, strict=True):
            for i, code in zip(idx, reply, strict=True):
                codes[i] = int(code)
        return codes

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


def _pairs(flat: list[str]) -> dict[str, str]:
    return dict(zip(flat[::2], flat[1::2], strict=True))
