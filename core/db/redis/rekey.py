"""RedisDb's rekey pass (``core/governance/rekey.py``): hash fields, data, undo records and
the conflict copy.

Every session of the hot index is read as stored; one that holds a text not sealed
under the newest key (a state value, its data, an undo record's previous texts or
data, the kept-aside copy of a reused version) is read again under its run lease and
rewritten by one script, guarded by the version and save id it read: same version,
same content, new ciphertext. The meta's ``sum`` (stored bytes, for the size limit)
follows the new lengths.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from core.db import data_log
from core.db.cipher import StateCipher
from core.db.maintenance import RekeyCounts
from core.db.redis.keys import BUCKETS, BucketKeys, SessionKeys, bucket_of
from core.db.redis.scripts import LuaScript
from core.exceptions import DamagedDataError, StateDecryptError

if TYPE_CHECKING:
    from core.db.redis.store import RedisDb

# KEYS: state meta data hist conflict  ARGV: 1 version 2 save 3 has_data 4 data
# 5 sum_delta 6 old conflict copy 7 new conflict copy ('' = leave it) 8 n_fields, then
# (field, text) * n_fields, then (index, old undo, new undo) triples.
# Returns {0} moved on (nothing written) | {1, undo records and conflict copy rewritten}.
REKEY = LuaScript(
    r"""
local meta = KEYS[2]
if redis.call('HGET', meta, 'v') ~= ARGV[1] then return {0} end
if (redis.call('HGET', meta, 'save') or '') ~= ARGV[2] then return {0} end
local undone = 0
if ARGV[7] ~= '' and redis.call('GET', KEYS[5]) == ARGV[6] then
  redis.call('SET', KEYS[5], ARGV[7], 'KEEPTTL')
  undone = 1
end
local n = tonumber(ARGV[8])
for i = 0, n - 1 do redis.call('HSET', KEYS[1], ARGV[9 + 2 * i], ARGV[10 + 2 * i]) end
if ARGV[3] == '1' then redis.call('SET', KEYS[3], ARGV[4], 'KEEPTTL') end
local delta = tonumber(ARGV[5])
if delta ~= 0 then
  redis.call('HSET', meta, 'sum', tonumber(redis.call('HGET', meta, 'sum') or '0') + delta)
end
for j = 9 + 2 * n, #ARGV, 3 do
  local at = tonumber(ARGV[j])
  if redis.call('LINDEX', KEYS[4], at) == ARGV[j + 1] then
    redis.call('LSET', KEYS[4], at, ARGV[j + 2])
    undone = undone + 1
  end
end
return {1, undone}
"""
)

_IDS_PER_ROUND = 500


async def rekey_redis(db: RedisDb) -> RekeyCounts:
    """Rewrite every hot session of ``db`` that holds a text under an older key."""
    assert db.cipher is not None
    counts = RekeyCounts(store=f"RedisDb({db.location!r}, prefix={db.key_prefix!r})")
    for session_id in await _hot_sessions(db):
        counts.sessions += 1
        keys = SessionKeys(db.key_prefix, session_id)
        try:
            if _plan(db.cipher, keys, await _read(db, keys)) is None:
                continue
            async with db.session_lock(session_id):
                plan = _plan(db.cipher, keys, await _read(db, keys))
                if plan is None:
                    continue
                with db._clients.unavailable(f"rekey session {session_id!r}"):
                    reply = await REKEY(
                        db._clients.get(),
                        [keys.state, keys.meta, keys.data, keys.hist, keys.conflict],
                        plan.args,
                    )
        except (StateDecryptError, DamagedDataError) as exc:
            counts.failed.append(str(exc))
            continue
        if int(reply[0]) == 0:
            counts.moved += 1
            continue
        counts.rewritten += 1 if plan.fields or plan.data else 0
        counts.values += plan.fields
        counts.data += plan.data
        counts.history += int(reply[1])
    return counts


async def _hot_sessions(db: RedisDb) -> list[str]:
    """Ids of the sessions in the hot index (the ones expired meanwhile left out)."""
    buckets = [BucketKeys(db.key_prefix, b) for b in range(BUCKETS)]
    with db._clients.unavailable("list sessions to rekey"):
        pipe = db._clients.client().pipeline(transaction=False)
        for bucket in buckets:
            pipe.zrange(bucket.index, 0, -1)
        hashes = [h for reply in await pipe.execute() for h in reply]
        ids: list[str] = []
        for start in range(0, len(hashes), _IDS_PER_ROUND):
            chunk = hashes[start : start + _IDS_PER_ROUND]
            pipe = db._clients.client().pipeline(transaction=False)
            for h in chunk:
                pipe.hget(f"{buckets[bucket_of(h)].tag}:s:{h}:meta", "id")
            ids += [sid for sid in await pipe.execute() if sid is not None]
    return sorted(ids)


async def _read(db: RedisDb, keys: SessionKeys) -> list[Any]:
    """[state, data, undo records, version, save id, conflict copy] as stored."""
    with db._clients.unavailable(f"read session {keys.session_id!r} to rekey"):
        pipe = db._clients.get().pipeline(transaction=True)
        pipe.hgetall(keys.state)
        pipe.get(keys.data)
        pipe.lrange(keys.hist, 0, -1)
        pipe.hmget(keys.meta, "v", "save")
        pipe.get(keys.conflict)
        state, data, undo, (version, save), conflict = await pipe.execute()
    return [state, data or "", undo, version, save or "", conflict or ""]


class _Plan:
    __slots__ = ("args", "data", "fields")

    def __init__(self, args: list[Any], fields: int, data: int) -> None:
        self.args = args
        self.fields = fields
        self.data = data


def _plan(cipher: StateCipher, keys: SessionKeys, read: list[Any]) -> _Plan | None:
    """The REKEY arguments for what is not under the newest key; None: nothing to do."""
    state, data, undo, version, save, conflict = read
    if version is None:
        return None  # gone (deleted or expired) since it was listed
    sid = keys.session_id
    fields: dict[str, str] = {}
    delta = 0
    for key, text in state.items():
        new = cipher.renewed(text, sid, key)
        if new is not None:
            fields[key] = new
            delta += len(new.encode()) - len(text.encode())
    new_data = data_log.renewed(data, sid, cipher)
    undo_args: list[Any] = []
    for at, raw in enumerate(undo):
        renewed = _renewed_undo(cipher, sid, raw)
        if renewed is not None:
            undo_args += [at, raw, renewed]
    new_conflict = _renewed_conflict(cipher, sid, conflict) if conflict else None
    if not fields and new_data is None and not undo_args and new_conflict is None:
        return None
    args: list[Any] = [
        version,
        save,
        "1" if new_data is not None else "0",
        new_data or "",
        delta,
        conflict,
        new_conflict or "",
        len(fields),
    ]
    for key, text in fields.items():
        args += [key, text]
    return _Plan(args + undo_args, len(fields), int(new_data is not None))


def _renewed_undo(cipher: StateCipher, session_id: str, raw: str) -> str | None:
    """An undo record with its previous texts and data sealed again; None: unchanged."""
    item: dict[str, Any] = json.loads(raw)
    changed = False
    old = item.get("o") or {}
    for key, previous in old.items():
        if previous is not False:
            new = cipher.renewed(previous, session_id, key)
            if new is not None:
                old[key] = new
                changed = True
    previous_data = item.get("d")
    if previous_data:
        new = data_log.renewed(previous_data, session_id, cipher)
        if new is not None:
            item["d"] = new
            changed = True
    if not changed:
        return None
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def _renewed_conflict(cipher: StateCipher, session_id: str, raw: str) -> str | None:
    """The kept-aside copy of a reused version (``repair.py``) with its values sealed
    again; None: unchanged. Its state holds each key's stored text decoded: a sealed
    text decodes to its sealed string, which is encoded back to be renewed."""
    item: dict[str, Any] = json.loads(raw)
    state: dict[str, Any] = item.get("state") or {}
    changed = False
    for key, value in state.items():
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        new = cipher.renewed(text, session_id, key)
        if new is not None:
            state[key] = json.loads(new)
            changed = True
    if not changed:
        return None
    return json.dumps(item, ensure_ascii=False)
