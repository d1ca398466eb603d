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


# Save a delta. KEYS: state meta hist dirty index lease gone
# ARGV: 1 expected  2 token  3 now  4 ttl_ms  5 hist_limit  6 hash  7 session_id  8 kind
#       9 owner 10 has_owner 11 user 12 has_user 13 save_id 14 max_bytes 15 guard_dirty
#       16 n_changed, then (key, json, key_bytes) * n_changed, then (key, key_bytes) * removed
# Returns {1, version} | {0, actual or -1} stale | {-1, version} lease lost | {-2, bytes}
SAVE = LuaScript(
    r"""
local state, meta = KEYS[1], KEYS[2]
local expected = tonumber(ARGV[1])
local cur = redis.call('HGET', meta, 'v')
local version = cur and tonumber(cur) or 0
if cur and version == expected + 1 and redis.call('HGET', meta, 'save') == ARGV[13] then
  return {1, version}
end
if version ~= expected then return {0, cur and version or -1} end
if ARGV[2] ~= '' and redis.call('GET', KEYS[6]) ~= ARGV[2] then return {-1, version} end
local n = tonumber(ARGV[16])
local sum = tonumber(redis.call('HGET', meta, 'sum') or '0')
local count = redis.call('HLEN', state)
local old = {}
local fields = {}
for i = 0, n - 1 do
  local k, val, kb = ARGV[17 + 3 * i], ARGV[18 + 3 * i], tonumber(ARGV[19 + 3 * i])
  local prev = redis.call('HGET', state, k)
  if prev then sum = sum - kb - #prev else count = count + 1 end
  sum = sum + kb + #val
  old[k] = prev or false
  fields[#fields + 1] = k
  fields[#fields + 1] = val
end
local removed = {}
for j = 17 + 3 * n, #ARGV, 2 do
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
for i = 1, #removed, 500 do
  redis.call('HDEL', state, unpack(removed, i, math.min(i + 499, #removed)))
end
for i = 1, #fields, 1000 do
  redis.call('HSET', state, unpack(fields, i, math.min(i + 999, #fields)))
end
local new_version = version + 1
redis.call('HSET', meta, 'v', new_version, 'id', ARGV[7], 'kind', ARGV[8], 'updated', ARGV[3],
  'sum', sum, 'save', ARGV[13], 'ttl', ARGV[4])
if version == 0 then
  redis.call('HSET', meta, 'created', ARGV[3])
  redis.call('DEL', KEYS[7])
end
if ARGV[10] == '1' then redis.call('HSET', meta, 'owner', ARGV[9]) end
if ARGV[12] == '1' then redis.call('HSET', meta, 'user', ARGV[11])
else redis.call('HDEL', meta, 'user') end
local limit = tonumber(ARGV[5])
if limit > 0 then
  local undo = {v = new_version, t = ARGV[3], o = old}
  if ARGV[12] == '1' then undo['u'] = ARGV[11] end
  redis.call('LPUSH', KEYS[3], cjson.encode(undo))
  redis.call('LTRIM', KEYS[3], 0, limit - 1)
end
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[6])
local ttl = tonumber(ARGV[4])
for _, key in ipairs({state, meta, KEYS[3]}) do
  if ARGV[15] == '1' or ttl <= 0 then redis.call('PERSIST', key)
  else redis.call('PEXPIRE', key, ttl) end
end
return {1, new_version}
"""
)

# Seed a session read back from the durable store, unless Redis already has it.
# KEYS: state meta index  ARGV: hash id v kind owner user created updated ttl_ms sum,
# then (key, json) pairs. Returns 1 when seeded, 0 when Redis had the session.
SEED = LuaScript(
    r"""
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local fields = {}
for j = 11, #ARGV, 2 do
  fields[#fields + 1] = ARGV[j]
  fields[#fields + 1] = ARGV[j + 1]
end
for i = 1, #fields, 1000 do
  redis.call('HSET', KEYS[1], unpack(fields, i, math.min(i + 999, #fields)))
end
redis.call('HSET', KEYS[2], 'id', ARGV[2], 'v', ARGV[3], 'kind', ARGV[4], 'created', ARGV[7],
  'updated', ARGV[8], 'ttl', ARGV[9], 'sum', ARGV[10])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'owner', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[2], 'user', ARGV[6]) end
redis.call('ZADD', KEYS[3], ARGV[8], ARGV[1])
local ttl = tonumber(ARGV[9])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return 1
"""
)

# Replace a session by a whole record if it is newer (version-guarded upsert).
# KEYS: state meta hist dirty index gone  ARGV: 1 hash 2 id 3 v 4 kind 5 owner 6 user
# 7 created 8 updated 9 ttl_ms 10 hist_limit 11 guard_dirty 12 sum, then (key, json) pairs.
# Returns 1 written, 0 when Redis has this version or a newer one.
UPSERT = LuaScript(
    r"""
local state, meta = KEYS[1], KEYS[2]
local cur = redis.call('HGET', meta, 'v')
if cur and tonumber(cur) >= tonumber(ARGV[3]) then return 0 end
local old = {}
local prev = redis.call('HGETALL', state)
for i = 1, #prev, 2 do old[prev[i]] = prev[i + 1] end
local fields = {}
for j = 13, #ARGV, 2 do
  if old[ARGV[j]] == nil then old[ARGV[j]] = false end
  fields[#fields + 1] = ARGV[j]
  fields[#fields + 1] = ARGV[j + 1]
end
redis.call('DEL', state, KEYS[6])
for i = 1, #fields, 1000 do
  redis.call('HSET', state, unpack(fields, i, math.min(i + 999, #fields)))
end
redis.call('HDEL', meta, 'owner', 'user', 'save')
redis.call('HSET', meta, 'id', ARGV[2], 'v', ARGV[3], 'kind', ARGV[4], 'created', ARGV[7],
  'updated', ARGV[8], 'ttl', ARGV[9], 'sum', ARGV[12])
if ARGV[5] ~= '' then redis.call('HSET', meta, 'owner', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', meta, 'user', ARGV[6]) end
local limit = tonumber(ARGV[10])
if limit > 0 then
  local undo = {v = tonumber(ARGV[3]), t = ARGV[8], o = old}
  if ARGV[6] ~= '' then undo['u'] = ARGV[6] end
  redis.call('LPUSH', KEYS[3], cjson.encode(undo))
  redis.call('LTRIM', KEYS[3], 0, limit - 1)
end
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[8], ARGV[1])
local ttl = tonumber(ARGV[9])
for _, key in ipairs({state, meta, KEYS[3]}) do
  if ARGV[11] == '1' or ttl <= 0 then redis.call('PERSIST', key)
  else redis.call('PEXPIRE', key, ttl) end
end
return 1
"""
)

# Delete a session. KEYS: state meta hist dirty index gone  ARGV: hash
DELETE = LuaScript(
    r"""
local existed = redis.call('EXISTS', KEYS[2])
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('SET', KEYS[6], '1', 'PX', 3600000)
return existed
"""
)

# Read sessions of one bucket atomically. KEYS: (state, meta) per session.
READ = LuaScript(
    r"""
local out = {}
for i = 1, #KEYS, 2 do
  out[#out + 1] = redis.call('HGETALL', KEYS[i])
  out[#out + 1] = redis.call('HGETALL', KEYS[i + 1])
end
return out
"""
)

# Leave the dirty set only if the version did not move. KEYS: dirty, then
# (meta, state, hist, gone) per session. ARGV: (hash, version) per session.
# Returns per session: 1 clean, 0 moved on (stays dirty), 2 deleted meanwhile.
MARK_CLEAN = LuaScript(
    r"""
local out = {}
for i = 0, (#ARGV / 2) - 1 do
  local meta, state, hist, gone = KEYS[2 + 4 * i], KEYS[3 + 4 * i], KEYS[4 + 4 * i], KEYS[5 + 4 * i]
  local h, v = ARGV[1 + 2 * i], ARGV[2 + 2 * i]
  local cur = redis.call('HGET', meta, 'v')
  if cur == v then
    redis.call('SREM', KEYS[1], h)
    local ttl = tonumber(redis.call('HGET', meta, 'ttl') or '0')
    if ttl > 0 then
      for _, key in ipairs({state, meta, hist}) do redis.call('PEXPIRE', key, ttl) end
    end
    out[#out + 1] = 1
  elseif not cur then
    redis.call('SREM', KEYS[1], h)
    out[#out + 1] = redis.call('EXISTS', gone) == 1 and 2 or 1
  else
    out[#out + 1] = 0
  end
end
return out
"""
)


async def run_many(client: Redis, calls: list[tuple[LuaScript, list[str], list[Any]]]) -> list[Any]:
    """Several script calls in one pipeline (one round trip); reloads lost scripts once.

    Only for scripts that are safe to run twice (reads and compare-and-remove), since a
    NOSCRIPT reply makes the whole batch run again.
    """
    if not calls:
        return []
    for attempt in range(2):
        pipe = client.pipeline(transaction=False)
        for script, keys, args in calls:
            pipe.evalsha(script.sha, len(keys), *keys, *args)
        try:
            return list(await pipe.execute())
        except NoScriptError:
            if attempt:
                raise
            for script in {s.sha: s for s, _, _ in calls}.values():
                await client.script_load(script.source)
    raise AssertionError("unreachable")
