"""The Lua scripts: each one runs atomically inside Redis, in one round trip.

Scripts are sent by SHA1 (EVALSHA); a Redis that does not know one yet (restarted,
flushed) answers NOSCRIPT and the script is sent in full once (EVAL caches it).
All keys a script touches carry the session's hash tag (see ``keys.py``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import NoScriptError


class LuaScript:
    """One script, called by SHA with a fallback to the full text."""

    __slots__ = ("sha", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, client: Redis, keys: list[str], args: list[Any]) -> Any:
        try:
            return await client.evalsha(self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await client.eval(self.source, len(keys), *keys, *args)


#: Lua: the run id of this Redis process. It changes on every restart and differs on a
#: promoted replica, and unlike any key it is never restored from an RDB/AOF file: a
#: session whose meta ``ep`` differs was last written by another Redis incarnation and
#: must be checked against the durable store before it is served (see ``repair.py``).
RUN_ID = r"""
local function run_id()
  return string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
end
"""

# Load a session: ``load(state, meta, dirty, data, hash, verify)``; verify '1': a
# durable store can vouch for the session, so one from another Redis incarnation is not
# served. Returns {0, {}, {}, '', 0, ep} absent | {1, state, meta, data, 0, ep} served |
# {2, state, meta, data, is_dirty, ep} unverified; ``ep`` is this Redis's run id (the
# incarnation a read-back claims the durable row for: ``repair.py``).
LOAD_FUNCTION = r"""
local function load(state_key, meta_key, dirty_key, data_key, hash, verify)
  local meta = redis.call('HGETALL', meta_key)
  if #meta == 0 then return {0, {}, {}, '', 0, run_id()} end
  local state = redis.call('HGETALL', state_key)
  local data = redis.call('GET', data_key) or ''
  local ep = run_id()
  if redis.call('HGET', meta_key, 'ep') ~= ep then
    if verify == '1' then
      return {2, state, meta, data, redis.call('SISMEMBER', dirty_key, hash), ep}
    end
    redis.call('HSET', meta_key, 'ep', ep)
  end
  return {1, state, meta, data, 0, ep}
end
"""
# KEYS: state meta dirty data  ARGV: hash verify.
LOAD = LuaScript(
    RUN_ID + LOAD_FUNCTION + "return load(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2])\n"
)

# Save a delta. KEYS: state meta hist dirty index lease gone data
# ARGV: 1 expected  2 token  3 now  4 ttl_ms  5 hist_limit  6 hash  7 session_id  8 kind
#       9 owner 10 has_owner 11 user 12 has_user 13 save_id 14 max_bytes 15 guard_dirty
#       16 verify 17 has_data 18 data 19 n_changed, then (key, json, key_bytes) * n_changed,
#       then (key, key_bytes) * removed
# Returns {1, version, ep} (``ep``: the run id of the Redis that holds the save) |
# {0, actual or -1} stale | {-1, version} lease held by another run | {-2, bytes}
# | {-4, version} lease gone (expired, or evicted by a full Redis), held by nobody
# | {-3, version} written by another Redis incarnation: verify it first (``repair.py``).
# has_data: '0' the data is unchanged, '1' replace it, '2' replace it and keep the
# previous data in the undo record: only a write-through save may be undone
# (``write_through.UNDO``), and copying the whole data (run history, audit trail) into
# Redis on every other save cost each turn of a long-lived session its size again.
# '3' append ARGV[18] to the data log (``data_log.py``), '4' append and keep the log's
# previous length in the undo record; {-5, version} when the data is not a log (written
# whole before it): nothing is written, the caller writes the log whole.
# A new session after a delete continues from the deleted version (kept in ``gone``), so
# a version number never names two different contents.
SAVE_FUNCTION = r"""
local function save()
local state, meta = KEYS[1], KEYS[2]
local expected = tonumber(ARGV[1])
local cur = redis.call('HGET', meta, 'v')
local version = cur and tonumber(cur) or 0
if cur and redis.call('HGET', meta, 'save') == ARGV[13] then
  return {1, version, redis.call('HGET', meta, 'ep') or ''}
end
if version ~= expected then return {0, cur and version or -1} end
local ep = run_id()
if cur and ARGV[16] == '1' and redis.call('HGET', meta, 'ep') ~= ep then
  return {-3, version}
end
if ARGV[2] ~= '' then
  local holder = redis.call('GET', KEYS[6])
  if not holder then return {-4, version} end
  if holder ~= ARGV[2] then return {-1, version} end
end
local append = ARGV[17] == '3' or ARGV[17] == '4'
if append and redis.call('GETRANGE', KEYS[8], 0, 0) ~= 'H' then return {-5, version} end
local n = tonumber(ARGV[19])
local prev_sum = redis.call('HGET', meta, 'sum') or '0'
local sum = tonumber(prev_sum)
local count = redis.call('HLEN', state)
local old = {}
local fields = {}
for i = 0, n - 1 do
  local k, val, kb = ARGV[20 + 3 * i], ARGV[21 + 3 * i], tonumber(ARGV[22 + 3 * i])
  local prev = redis.call('HGET', state, k)
  if prev then sum = sum - kb - #prev else count = count + 1 end
  sum = sum + kb + #val
  old[k] = prev or false
  fields[#fields + 1] = k
  fields[#fields + 1] = val
end
local removed = {}
for j = 20 + 3 * n, #ARGV, 2 do
  local k, kb = ARGV[j], tonumber(ARGV[j + 1])
  local prev = redis.call('HGET', state, k)
  if prev then
    sum = sum - kb - #prev
    count = count - 1
    old[k] = prev
    removed[#removed + 1] = k
  end
end
local size = 2
if count > 0 then size = 2 + count - 1 + sum end
local max_bytes = tonumber(ARGV[14])
if max_bytes > 0 and size > max_bytes then return {-2, size} end
local base = version
if version == 0 then base = tonumber(redis.call('GET', KEYS[7]) or '0') or 0 end
local prev_save = redis.call('HGET', meta, 'save') or ''
local prev_data, prev_len = false, false
if append then
  if ARGV[17] == '4' then prev_len = redis.call('STRLEN', KEYS[8]) end
  redis.call('APPEND', KEYS[8], ARGV[18])
elseif ARGV[17] ~= '0' then
  if ARGV[17] == '2' then prev_data = redis.call('GET', KEYS[8]) or '' end
  if ARGV[18] == '' then redis.call('DEL', KEYS[8]) else redis.call('SET', KEYS[8], ARGV[18]) end
end
for i = 1, #removed, 500 do
  redis.call('HDEL', state, unpack(removed, i, math.min(i + 499, #removed)))
end
for i = 1, #fields, 1000 do
  redis.call('HSET', state, unpack(fields, i, math.min(i + 999, #fields)))
end
local new_version = base + 1
redis.call('HSET', meta, 'v', new_version, 'id', ARGV[7], 'kind', ARGV[8], 'updated', ARGV[3],
  'sum', sum, 'save', ARGV[13], 'ttl', ARGV[4], 'ep', ep)
if version == 0 then
  redis.call('HSET', meta, 'created', ARGV[3])
  redis.call('DEL', KEYS[7])
end
if ARGV[10] == '1' then redis.call('HSET', meta, 'owner', ARGV[9]) end
if ARGV[12] == '1' then redis.call('HSET', meta, 'user', ARGV[11])
else redis.call('HDEL', meta, 'user') end
local limit = tonumber(ARGV[5])
if limit > 0 then
  local undo = {v = new_version, t = ARGV[3], o = old, s = prev_save, b = prev_sum}
  if prev_data then undo['d'] = prev_data end
  if prev_len then undo['dl'] = prev_len end
  if version == 0 then undo['n'] = 1 end
  if ARGV[12] == '1' then undo['u'] = ARGV[11] end
  redis.call('LPUSH', KEYS[3], cjson.encode(undo))
  redis.call('LTRIM', KEYS[3], 0, limit - 1)
end
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[6])
local ttl = tonumber(ARGV[4])
for _, key in ipairs({state, meta, KEYS[3], KEYS[8]}) do
  if ARGV[15] == '1' or ttl <= 0 then redis.call('PERSIST', key)
  else redis.call('PEXPIRE', key, ttl) end
end
return {1, new_version, ep}
end
"""
SAVE = LuaScript(RUN_ID + SAVE_FUNCTION + "return save()\n")

# Seed a session read back from the durable store, unless Redis already has it or it
# was deleted (a tombstone at or past the durable version: the durable copy is a
# snapshot that was in flight during the delete).
# KEYS: state meta index gone data  ARGV: hash id v kind owner user created updated ttl_ms
# save data sum claimed, then (key, json) pairs. ``claimed``: the run id the durable row
# was claimed for; another one (Redis restarted since) seeds nothing.
# Returns {1} seeded, {0} Redis had the session, {-1, deleted_version} tombstoned,
# {-2} restarted since the claim (claim again).
SEED = LuaScript(
    RUN_ID
    + r"""
if ARGV[13] ~= run_id() then return {-2} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {0} end
local gone = tonumber(redis.call('GET', KEYS[4]) or '-1') or 0
if gone >= tonumber(ARGV[3]) then return {-1, gone} end
local fields = {}
for j = 14, #ARGV, 2 do
  fields[#fields + 1] = ARGV[j]
  fields[#fields + 1] = ARGV[j + 1]
end
for i = 1, #fields, 1000 do
  redis.call('HSET', KEYS[1], unpack(fields, i, math.min(i + 999, #fields)))
end
if ARGV[11] ~= '' then redis.call('SET', KEYS[5], ARGV[11]) end
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'v', ARGV[3], 'kind', ARGV[4], 'created', ARGV[7],
  'updated', ARGV[8], 'ttl', ARGV[9], 'save', ARGV[10], 'sum', ARGV[12], 'ep', run_id())
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'owner', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], 'user', ARGV[6]) end
redis.call('ZADD', KEYS[3], ARGV[8], ARGV[1])
local ttl = tonumber(ARGV[9])
if ttl > 0 then
  for _, key in ipairs({KEYS[1], KEYS[2], KEYS[5]}) do redis.call('PEXPIRE', key, ttl) end
end
return {1}
"""
)

# Replace a session by a whole record if it is newer (version-guarded upsert).
# KEYS: state meta hist dirty index gone data  ARGV: 1 hash 2 id 3 v 4 kind 5 owner 6 user
# 7 created 8 updated 9 ttl_ms 10 save 11 data 12 hist_limit 13 guard_dirty 14 sum, then
# (key, json) pairs. Returns 1 written, 0 when Redis has this version or a newer one.
UPSERT = LuaScript(
    RUN_ID
    + r"""
local state, meta = KEYS[1], KEYS[2]
local cur = redis.call('HGET', meta, 'v')
if cur and tonumber(cur) >= tonumber(ARGV[3]) then return 0 end
local old = {}
local prev = redis.call('HGETALL', state)
for i = 1, #prev, 2 do old[prev[i]] = prev[i + 1] end
local fields = {}
for j = 15, #ARGV, 2 do
  if old[ARGV[j]] == nil then old[ARGV[j]] = false end
  fields[#fields + 1] = ARGV[j]
  fields[#fields + 1] = ARGV[j + 1]
end
redis.call('DEL', state, KEYS[6])
for i = 1, #fields, 1000 do
  redis.call('HSET', state, unpack(fields, i, math.min(i + 999, #fields)))
end
redis.call('HDEL', meta, 'owner', 'user')
redis.call('HSET', meta, 'id', ARGV[2], 'v', ARGV[3], 'kind', ARGV[4], 'created', ARGV[7],
  'updated', ARGV[8], 'ttl', ARGV[9], 'save', ARGV[10], 'sum', ARGV[14], 'ep', run_id())
if ARGV[11] == '' then redis.call('DEL', KEYS[7]) else redis.call('SET', KEYS[7], ARGV[11]) end
if ARGV[5] ~= '' then redis.call('HSET', meta, 'owner', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', meta, 'user', ARGV[6]) end
local limit = tonumber(ARGV[12])
if limit > 0 then
  local undo = {v = tonumber(ARGV[3]), t = ARGV[8], o = old}
  if ARGV[6] ~= '' then undo['u'] = ARGV[6] end
  redis.call('LPUSH', KEYS[3], cjson.encode(undo))
  redis.call('LTRIM', KEYS[3], 0, limit - 1)
end
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[8], ARGV[1])
local ttl = tonumber(ARGV[9])
for _, key in ipairs({state, meta, KEYS[3], KEYS[7]}) do
  if ARGV[13] == '1' or ttl <= 0 then redis.call('PERSIST', key)
  else redis.call('PEXPIRE', key, ttl) end
end
return 1
"""
)

# Delete a session. KEYS: state meta hist dirty index gone data conflict quarantine
# ARGV: hash
# The tombstone keeps the version the session had reached, so a snapshot in flight
# cannot be read back and a re-created session continues after it. The conflict copy
# and the quarantine entry go too (both hold the session's state or ids): the
# quarantine hash is its bucket's, so every key here shares the session's slot.
DELETE = LuaScript(
    r"""
local existed = redis.call('EXISTS', KEYS[2])
local v = tonumber(redis.call('HGET', KEYS[2], 'v') or '0')
local before = tonumber(redis.call('GET', KEYS[6]) or '0') or 0
v = math.max(v, before)
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[7], KEYS[8])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[9], ARGV[1])
redis.call('SET', KEYS[6], v, 'PX', 3600000)
return existed
"""
)

# Park a session the durable store keeps refusing: out of the dirty set (so the others
# drain), into the quarantine hash with the reason; its keys stay and never expire.
# A later save makes it dirty again (and so retried). KEYS: dirty quarantine meta
# ARGV: hash version entry_json. Returns 1 parked, 0 moved on meanwhile (stays dirty).
QUARANTINE = LuaScript(
    r"""
if redis.call('HGET', KEYS[3], 'v') ~= ARGV[2] then return 0 end
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return 1
"""
)
