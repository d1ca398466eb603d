"""Lua scripts of the run lease: acquire in FIFO order, heartbeat, renew, release with hand-off.

Time comes from Redis (``TIME``), so clocks of the processes never matter. Every key a
script touches belongs to one session and carries its hash tag (one Redis Cluster
slot). A hand-off is announced on a pub/sub channel (a channel, not a key: classic
PUBLISH reaches every node of a cluster) with the ticket it went to, so a waiter needs
no connection of its own to learn that its turn came.
"""

from __future__ import annotations

from core.db.redis.scripts import LOAD_FUNCTION, RUN_ID, SAVE_FUNCTION, LuaScript

# Lease hand-off shared by RELEASE, CANCEL and HEARTBEAT: give the lease to the oldest
# live waiter and announce it.
_HANDOFF = r"""
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function prune(queue, alive)
  local dead = redis.call('ZRANGEBYSCORE', alive, '-inf', now_ms())
  for _, d in ipairs(dead) do
    redis.call('ZREM', queue, d)
    redis.call('ZREM', alive, d)
  end
end
local function handoff(lease, queue, alive, channel, grant_ms)
  prune(queue, alive)
  local head = redis.call('ZRANGE', queue, 0, 0)[1]
  if head then
    redis.call('SET', lease, head, 'PX', grant_ms)
    redis.call('ZREM', queue, head)
    redis.call('ZREM', alive, head)
    redis.call('PUBLISH', channel, head)
  end
end
"""

# Try to take the lease. KEYS: lease queue alive seq
# ARGV: ticket lock_ttl_ms stale_ms max_waiters (0: unbounded).
# Returns 1 held, 0 wait (queued), -1 refused: max_waiters already wait.
_ACQUIRE_FUNCTION = r"""
local function acquire()
local lease, queue, alive, seq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ticket, ttl, stale = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local max_waiters = tonumber(ARGV[4])
if redis.call('GET', lease) == ticket then
  redis.call('PEXPIRE', lease, ttl)
  return 1
end
prune(queue, alive)
if not redis.call('ZSCORE', queue, ticket) then
  if redis.call('EXISTS', lease) == 0 and redis.call('ZCARD', queue) == 0 then
    redis.call('SET', lease, ticket, 'PX', ttl)
    return 1
  end
  if max_waiters > 0 and redis.call('ZCARD', queue) >= max_waiters then return -1 end
  redis.call('ZADD', queue, redis.call('INCR', seq), ticket)
end
redis.call('ZADD', alive, now_ms() + stale, ticket)
for _, key in ipairs({queue, alive, seq}) do redis.call('PEXPIRE', key, stale * 10) end
if redis.call('EXISTS', lease) == 1 then return 0 end
if redis.call('ZRANGE', queue, 0, 0)[1] ~= ticket then return 0 end
redis.call('SET', lease, ticket, 'PX', ttl)
redis.call('ZREM', queue, ticket)
redis.call('ZREM', alive, ticket)
return 1
end
"""
ACQUIRE = LuaScript(_HANDOFF + _ACQUIRE_FUNCTION + "return acquire()\n")

# A run's first step: take the lease (as ACQUIRE) and, once held, in the same script
# load the session (as LOAD) or, when it is exactly the version the caller knows
# (version, save id and Redis incarnation), say so without reading the state.
# KEYS: lease queue alive seq state meta dirty data erasing
# ARGV: ACQUIRE's four, then hash verify known_version known_save known_epoch
# ('' when nothing is known) and the run's user's erasure marker ('' without a user).
# Returns {0} queued | {-1} refused | {1, 4} held, but the user's data is being erased
# (core/db/user_blocks.py) | {1, 3} held and unchanged | {1, LOAD's reply...} held and
# loaded.
OPEN = LuaScript(
    RUN_ID
    + _HANDOFF
    + _ACQUIRE_FUNCTION
    + LOAD_FUNCTION
    + r"""
local got = acquire()
if got ~= 1 then return {got} end
if ARGV[10] ~= '' then
  local until_ms = redis.call('HGET', KEYS[9], ARGV[10])
  if until_ms and tonumber(until_ms) > now_ms() then return {1, 4} end
end
local meta = KEYS[6]
if ARGV[7] ~= '' and ARGV[9] == run_id() then
  local known = redis.call('HMGET', meta, 'v', 'save', 'ep')
  if known[1] == ARGV[7] and known[2] == ARGV[8] and known[3] == ARGV[9] then
    return {1, 3}
  end
end
local loaded = load(KEYS[5], meta, KEYS[7], KEYS[8], ARGV[5], ARGV[6])
table.insert(loaded, 1, 1)
return loaded
"""
)

# One process's heartbeat for its waiters on one session; hands a lease that expired
# (its holder died) to the next live waiter. KEYS: lease queue alive seq
# ARGV: stale_ms grant_ms channel ticket... Returns how many tickets are still queued.
HEARTBEAT = LuaScript(
    _HANDOFF
    + r"""
local lease, queue, alive, seq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local stale, grant, channel = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local until_ms = now_ms() + stale
local queued = 0
for i = 4, #ARGV do
  if redis.call('ZSCORE', queue, ARGV[i]) then
    redis.call('ZADD', alive, until_ms, ARGV[i])
    queued = queued + 1
  end
end
if queued > 0 then
  for _, key in ipairs({queue, alive, seq}) do redis.call('PEXPIRE', key, stale * 10) end
end
if redis.call('EXISTS', lease) == 0 then handoff(lease, queue, alive, channel, grant) end
return queued
"""
)

# Keep a held lease. KEYS: lease  ARGV: token ttl_ms. Returns 1 kept, 0 lost.
RENEW = LuaScript(
    r"""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""
)

# Give the lease back and hand it to the next waiter. KEYS: lease queue alive
# ARGV: token grant_ms channel. Returns 1 released, 0 not held any more.
RELEASE = LuaScript(
    _HANDOFF
    + r"""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
handoff(KEYS[1], KEYS[2], KEYS[3], ARGV[3], tonumber(ARGV[2]))
return 1
"""
)

# Stop waiting. KEYS: lease queue alive  ARGV: ticket grant_ms channel.
# Returns 1 when the lease had been handed over meanwhile (the caller holds it).
CANCEL = LuaScript(
    _HANDOFF
    + r"""
if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then
  handoff(KEYS[1], KEYS[2], KEYS[3], ARGV[3], tonumber(ARGV[2]))
end
return 0
"""
)

# A run's last save and the release of its lease, in one step (one round trip): SAVE
# (see scripts.py, fenced by the token in ARGV[2]), then, only if the save succeeded and
# the lease is still the caller's, RELEASE with hand-off. KEYS: SAVE's eight, then queue
# alive. ARGV: SAVE's, then grant_ms channel. Returns SAVE's reply, plus on success a
# fourth element: 1 released, 0 not held any more; a failed save releases nothing.
SAVE_RELEASE = LuaScript(
    RUN_ID
    + _HANDOFF
    + SAVE_FUNCTION
    + r"""
local channel = table.remove(ARGV)
local grant = tonumber(table.remove(ARGV))
local result = save()
if result[1] == 1 then
  if redis.call('GET', KEYS[6]) == ARGV[2] then
    redis.call('DEL', KEYS[6])
    handoff(KEYS[6], KEYS[9], KEYS[10], channel, grant)
    result[4] = 1
  else
    result[4] = 0
  end
end
return result
"""
)
