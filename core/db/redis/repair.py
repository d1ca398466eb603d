"""The durable store is the authority on history: check sessions from another Redis.

Redis can come back *behind* the durable store: restarted from an older RDB or AOF,
restored from a backup, a lagging replica promoted. Nothing in the data says so, since
the data is what was restored; but the Redis *process* is new, and its run id (``INFO
server``) with it. Every write stamps the session's meta with the run id (``ep``), and
the load script compares: a session stamped by another incarnation is not served until
it has been compared with its durable copy (one durable read per session per Redis
restart; the common path costs no extra round trip):

=====================================  ==========================================
Redis copy vs durable copy             verdict
=====================================  ==========================================
durable newer                          ``adopt`` the durable copy (Redis was behind)
same version, same save                ``keep``
same version, another save             ``adopt`` durable; the Redis copy is kept
                                       aside under ``:conflict`` and logged
Redis newer, dirty                     ``keep`` (not snapshotted yet)
Redis newer, marked clean              ``redirty``: the durable store lost it
                                       (restored from a backup), copy it again
no durable copy, dirty                 ``keep`` (new, not snapshotted yet)
no durable copy, clean                 ``drop`` (deleted after the RDB was written)
=====================================  ==========================================

The verdict is applied by one script, guarded by the version and save the check saw
and by the run id still differing, so concurrent checks in several processes agree.
With a ``cipher`` the durable copy (read opened, through the store API) is sealed
again before it is adopted, and a kept-aside Redis copy holds its values as stored
(sealed): no plaintext reaches Redis either way.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from core.db.cipher import StateCipher
from core.db.codec import entry_bytes
from core.db.protocols import SnapshotTarget
from core.db.records import SessionRecord
from core.db.redis.client import RedisClients
from core.db.redis.keys import SessionKeys
from core.db.redis.scripts import RUN_ID, LuaScript
from core.utils.log import log_error, log_warning

Verdict = Literal["keep", "redirty", "drop", "adopt"]

# KEYS: state meta hist dirty index conflict data
# ARGV: 1 hash 2 seen_version 3 seen_save 4 verdict 5 ttl_ms 6 conflict_json 7 claimed
# (the run id the durable row was claimed for), and for adopt: 8 id 9 v 10 kind 11 owner
# 12 user 13 created 14 updated 15 save 16 sum 17 data, then (key, json) pairs.
# Returns 1 applied, 0 the session changed or Redis restarted meanwhile (check again).
REPAIR = LuaScript(
    RUN_ID
    + r"""
local state, meta, hist, dirty, index = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local ep = run_id()
if ARGV[7] ~= ep then return 0 end
if redis.call('HGET', meta, 'v') ~= ARGV[2] then return 0 end
if (redis.call('HGET', meta, 'save') or '') ~= ARGV[3] then return 0 end
if redis.call('HGET', meta, 'ep') == ep then return 0 end
local verdict = ARGV[4]
if verdict == 'keep' then
  redis.call('HSET', meta, 'ep', ep)
elseif verdict == 'redirty' then
  redis.call('HSET', meta, 'ep', ep)
  redis.call('SADD', dirty, ARGV[1])
  for _, key in ipairs({state, meta, hist, KEYS[7]}) do redis.call('PERSIST', key) end
elseif verdict == 'drop' then
  redis.call('DEL', state, meta, hist, KEYS[7])
  redis.call('SREM', dirty, ARGV[1])
  redis.call('ZREM', index, ARGV[1])
else
  if ARGV[6] ~= '' then redis.call('SET', KEYS[6], ARGV[6]) end
  redis.call('DEL', state, meta, hist, KEYS[7])
  if ARGV[17] ~= '' then redis.call('SET', KEYS[7], ARGV[17]) end
  local fields = {}
  for j = 18, #ARGV, 2 do
    fields[#fields + 1] = ARGV[j]
    fields[#fields + 1] = ARGV[j + 1]
  end
  for i = 1, #fields, 1000 do
    redis.call('HSET', state, unpack(fields, i, math.min(i + 999, #fields)))
  end
  redis.call('HSET', meta, 'id', ARGV[8], 'v', ARGV[9], 'kind', ARGV[10], 'created', ARGV[13],
    'updated', ARGV[14], 'save', ARGV[15], 'sum', ARGV[16], 'ttl', ARGV[5], 'ep', ep)
  if ARGV[11] ~= '' then redis.call('HSET', meta, 'owner', ARGV[11]) end
  if ARGV[12] ~= '' then redis.call('HSET', meta, 'user', ARGV[12]) end
  redis.call('SREM', dirty, ARGV[1])
  redis.call('ZADD', index, ARGV[14], ARGV[1])
  local ttl = tonumber(ARGV[5])
  for _, key in ipairs({state, meta, KEYS[7]}) do
    if ttl > 0 then redis.call('PEXPIRE', key, ttl) else redis.call('PERSIST', key) end
  end
end
return 1
"""
)


def judge(hot: SessionRecord, dirty: bool, durable: SessionRecord | None) -> Verdict:
    """What to do with a Redis copy from another incarnation (table in the module doc)."""
    if durable is None:
        return "keep" if dirty else "drop"
    if durable.version > hot.version:
        return "adopt"
    if durable.version == hot.version:
        same = not durable.save_id or not hot.save_id or durable.save_id == hot.save_id
        return "keep" if same else "adopt"
    return "keep" if dirty else "redirty"


async def check_against_durable(
    clients: RedisClients,
    keys: SessionKeys,
    hot: SessionRecord,
    dirty: bool,
    durable_store: SnapshotTarget,
    ttl_ms: int,
    cipher: StateCipher | None = None,
) -> Verdict | None:
    """Apply the verdict for ``hot`` (as stored); None when the session changed meanwhile.

    ``hot.epoch`` is the run id of the Redis that served it: the durable read claims the
    session for that incarnation (``aclaim``, see ``core/db/sql/epochs.py``), so a
    snapshot pass that read it from an earlier one cannot commit afterwards.
    """
    durable = await durable_store.aclaim(keys.session_id, hot.epoch)
    if durable is not None and cipher is not None:
        durable = cipher.resealed_record(durable)
    verdict = judge(hot, dirty, durable)
    conflict = ""
    if verdict == "adopt" and durable is not None and durable.version == hot.version:
        # a version that names two contents: the durable one wins, the other is kept
        conflict = json.dumps(
            {"version": hot.version, "save_id": hot.save_id, "state": hot.state},
            ensure_ascii=False,
        )
        log_error(
            "version reused with other content; kept the durable copy",
            session_id=keys.session_id,
            version=hot.version,
            durable_save=durable.save_id,
            hot_save=hot.save_id,
        )
    elif verdict != "keep":
        log_warning(
            "redis copy from another incarnation repaired",
            session_id=keys.session_id,
            verdict=verdict,
            redis_version=hot.version,
            durable_version=durable.version if durable else None,
        )
    args: list[Any] = [keys.hashed, hot.version, hot.save_id, verdict, ttl_ms, conflict, hot.epoch]
    if verdict == "adopt" and durable is not None:
        texts = durable.texts
        args += [
            durable.session_id,
            durable.version,
            durable.kind,
            durable.owner_id or "",
            durable.user_id or "",
            repr(durable.created_at),
            repr(durable.updated_at),
            durable.save_id,
            sum(entry_bytes(k, t) for k, t in texts.items()),
            durable.data,
        ]
        for key, text in texts.items():
            args += [key, text]
    script_keys = [
        keys.state,
        keys.meta,
        keys.hist,
        keys.bucket.dirty,
        keys.bucket.index,
        keys.conflict,
        keys.data,
    ]
    with clients.unavailable(f"repair session {keys.session_id!r}"):
        applied = await REPAIR(clients.get(), script_keys, args)
    return verdict if applied else None
