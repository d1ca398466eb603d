"""Maintenance primitives of RedisDb's hot keys: erasure and retention.

What ``RedisDb.asessions_naming``, ``ascrub_versions``, ``aforget_extras`` and
``aidle_sessions`` run (``core/governance/erasure.py`` and ``retention.py`` decide when).

Uses the store's private client (``_clients``) and its public key schema
(``core/db/redis/keys.py``); sessions themselves are deleted and saved through the
store's normal paths (``admin.delete_session``, ``asave`` under the lease), never here.
What is left for this module is what those paths do not reach:

* finding every session in Redis that names a user: a walk of the per-bucket listing
  indexes (every session Redis holds, dirty, quarantined or clean), each session's
  meta, state, data, undo records and conflict copy read in chunks;
* rewriting the undo records (``:hist``) and the conflict copy of a shared session,
  and the quarantine entry, which a save leaves as they were;
* the idle sessions of a retention pass, by the indexes' last-update scores.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from core.db import data_log
from core.db.cipher import StateCipher
from core.db.maintenance import UserRewrite
from core.db.redis.keys import BUCKETS, BucketKeys, SessionKeys
from core.db.redis.scripts import LuaScript

if TYPE_CHECKING:
    from core.db.redis.store import RedisDb

__all__ = ["forget_extras", "idle_sessions", "scrub_extras", "sessions_naming"]

#: sessions read per pipeline while looking for a user
_CHUNK = 200

# Replace a session's undo list if it is still what was read (same length and head);
# its expiry is kept. KEYS: hist  ARGV: length head item... Returns 1 written, 0 moved.
_REPLACE_LIST = LuaScript(
    r"""
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
if (redis.call('LINDEX', KEYS[1], 0) or '') ~= ARGV[2] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
if #ARGV > 2 then redis.call('RPUSH', KEYS[1], unpack(ARGV, 3)) end
if ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""
)

# Replace a session's data log by its compacted form if it is still what was read;
# its expiry is kept. KEYS: data  ARGV: read compacted. Returns 1 written, 0 moved.
_REPLACE_DATA = LuaScript(
    r"""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""
)

# Drop index entries of sessions that expired from Redis (no meta left), so they do not
# fill every retention batch. KEYS: index  ARGV: base ("<tag>:s:") hash...
_DROP_EXPIRED = LuaScript(
    r"""
local dropped = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i] .. ':meta') == 0 then
    dropped = dropped + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return dropped
"""
)


def _buckets(db: RedisDb) -> list[BucketKeys]:
    return [BucketKeys(db.key_prefix, b) for b in range(BUCKETS)]


async def sessions_naming(db: RedisDb, rewrite: UserRewrite) -> set[str]:
    """Ids of the sessions in Redis whose meta, state, data, undo records or conflict
    copy may name the user (a substring test; the caller checks exactly)."""
    clients = db._clients
    with clients.unavailable("list sessions to erase a user"):
        pipe = clients.client().pipeline(transaction=False)
        for bucket in _buckets(db):
            pipe.zrange(bucket.index, 0, -1)
        hashes = [str(h) for reply in await pipe.execute() for h in reply]
    found: set[str] = set()
    for start in range(0, len(hashes), _CHUNK):
        chunk = [SessionKeys(db.key_prefix, "", hashed=h) for h in hashes[start : start + _CHUNK]]
        with clients.unavailable("read sessions to erase a user"):
            pipe = clients.client().pipeline(transaction=False)
            for keys in chunk:
                pipe.hgetall(keys.meta)
                pipe.hvals(keys.state)
                pipe.get(keys.data)
                pipe.lrange(keys.hist, 0, -1)
                pipe.get(keys.conflict)
            replies = await pipe.execute()
        for i in range(len(chunk)):
            meta, values, data, undo, conflict = replies[5 * i : 5 * i + 5]
            if not meta or "id" not in meta:
                continue
            texts = [*meta.values(), *values, data or "", *undo, conflict or ""]
            if any(rewrite.mentions(str(t)) for t in texts):
                found.add(str(meta["id"]))
    return found


def _scrub_undo_item(
    raw: str, session_id: str, rewrite: UserRewrite, cipher: StateCipher | None
) -> str:
    """One undo record (layout in scripts.py SAVE) with the user pseudonymised; its old
    texts and data are opened and sealed again when the store encrypts."""
    user_id, pseudonym = rewrite.user_id, rewrite.pseudonym
    if cipher is None and not rewrite.mentions(raw):
        return raw
    item: dict[str, Any] = json.loads(raw)
    changed = False
    if item.get("u") == user_id:
        item["u"] = pseudonym
        changed = True
    old = item.get("o")
    if isinstance(old, dict):
        present = {k: t for k, t in old.items() if isinstance(t, str)}
        texts = rewrite.sealed_texts(present, session_id, cipher)
        if texts is not None or user_id in old:
            absent = {(pseudonym if k == user_id else k): t for k, t in old.items() if t is False}
            item["o"] = (texts if texts is not None else present) | absent
            changed = True
    if isinstance(item.get("d"), str):
        stored = data_log.stored_data(item["d"], session_id, cipher)
        data = rewrite.sealed_data(stored, session_id, cipher)
        changed = changed or data != item["d"]
        item["d"] = data
    return json.dumps(item, ensure_ascii=False, separators=(",", ":")) if changed else raw


async def scrub_extras(db: RedisDb, session_id: str, rewrite: UserRewrite) -> int:
    """Pseudonymise the user in a session's undo records, conflict copy and quarantine
    entry, and drop what its data log dropped (call under the session's lease, after
    the save); records rewritten."""
    keys = SessionKeys(db.key_prefix, session_id)
    client = db._clients.get()
    rewritten = 0
    with db._clients.unavailable(f"erase a user from session {session_id!r}"):
        for _ in range(5):  # a snapshot or expiry may move the list meanwhile: read again
            undo = [str(u) for u in await client.lrange(keys.hist, 0, -1)]
            new = [_scrub_undo_item(u, session_id, rewrite, db.cipher) for u in undo]
            changed = sum(1 for a, b in zip(undo, new, strict=True) if a != b)
            if not changed:
                break
            args = [len(undo), undo[0] if undo else "", *new]
            if await _REPLACE_LIST(client, [keys.hist], args):
                rewritten += changed
                break
        data = await client.get(keys.data)
        if data and data_log.is_log(str(data)):
            # dropped runs and entries stay in a data log until it is written anew
            # (sealed ones cannot be searched): write it anew now, live lines only
            live = data_log.compacted(str(data), session_id)
            if live != data and await _REPLACE_DATA(client, [keys.data], [data, live]):
                rewritten += 1
        conflict = await client.get(keys.conflict)
        if conflict and rewrite.mentions(str(conflict)):
            value, _ = rewrite.value(json.loads(conflict))
            await client.set(keys.conflict, json.dumps(value, ensure_ascii=False), keepttl=True)
            rewritten += 1
        entry = await client.hget(keys.bucket.quarantine, keys.hashed)
        if entry and rewrite.mentions(str(entry)):
            scrubbed = str(entry).replace(rewrite.user_id, rewrite.pseudonym)
            await client.hset(keys.bucket.quarantine, keys.hashed, scrubbed)
            rewritten += 1
    return rewritten


async def forget_extras(db: RedisDb, session_id: str) -> None:
    """Remove what a session delete leaves in Redis: its conflict copy and its
    quarantine entry (both may hold its state or ids)."""
    keys = SessionKeys(db.key_prefix, session_id)
    client = db._clients.get()
    with db._clients.unavailable(f"erase session {session_id!r}"):
        await client.delete(keys.conflict)
        await client.hdel(keys.bucket.quarantine, keys.hashed)


async def idle_sessions(
    db: RedisDb, before: float, *, limit: int, from_score: float | None = None
) -> list[tuple[str, float]]:
    """(session id, last update) of up to ``limit`` sessions in Redis not updated since
    ``before`` (and not before ``from_score``), oldest first; index entries of sessions
    that expired from Redis are dropped on the way."""
    low = "-inf" if from_score is None else repr(from_score)
    clients = db._clients
    buckets = _buckets(db)
    with clients.unavailable("list idle sessions"):
        pipe = clients.client().pipeline(transaction=False)
        for bucket in buckets:
            pipe.zrangebyscore(
                bucket.index, low, f"({before!r}", start=0, num=limit, withscores=True
            )
        replies = await pipe.execute()
    ranked = sorted((float(score), str(h)) for reply in replies for h, score in reply)[:limit]
    if not ranked:
        return []
    with clients.unavailable("list idle sessions"):
        pipe = clients.client().pipeline(transaction=False)
        for _, h in ranked:
            pipe.hget(SessionKeys(db.key_prefix, "", hashed=h).meta, "id")
        ids = await pipe.execute()
        gone: dict[int, list[str]] = {}
        for (_, h), session_id in zip(ranked, ids, strict=True):
            if session_id is None:
                gone.setdefault(SessionKeys(db.key_prefix, "", hashed=h).bucket.bucket, []).append(
                    h
                )
        for bucket_number, hs in gone.items():
            bucket = buckets[bucket_number]
            await _DROP_EXPIRED(clients.get(), [bucket.index], [f"{bucket.tag}:s:", *hs])
    return [
        (str(session_id), score)
        for (score, _), session_id in zip(ranked, ids, strict=True)
        if session_id is not None
    ]
