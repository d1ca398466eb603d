"""Lua scripts of the run lease: acquire in FIFO order, renew, release with hand-off.

Time comes from Redis (``TIME``), so clocks of the processes never matter. The wake
key of a waiter is derived inside the scripts from ``wake_prefix``; it carries the
session's hash tag, so it lives in the same Redis Cluster slot.
"""

from __future__ import annotations

from core.db.redis.scripts import LuaScript

# Lease hand-off shared by RELEASE and CANCEL: give the lease to the oldest live waiter.
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
local function handoff(lease, queue, alive, wake_prefix, grant_ms)
  prune(queue, alive)
  local head = redis.call('ZRANGE', queue, 0, 0)[1]
  if head then
    redis.call('SET', lease, head, 'PX', grant_ms)
    redis.call('ZREM', queue, head)
    redis.call('ZREM', alive, head)
    redis.call('LPUSH', wake_prefix .. head, '1')
    redis.call('PEXPIRE', wake_prefix .. head, grant_ms * 2)
  end
end
"""

# Try to take the lease. KEYS: lease queue alive seq wake_prefix wake
# ARGV: ticket lock_ttl_ms stale_ms. Returns 1 held, 0 wait.
ACQUIRE = LuaScript(
    _HANDOFF
    + r"""
local lease, queue, alive, seq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local ticket, ttl, stale = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('GET', lease) == ticket then
  redis.call('PEXPIRE', lease, ttl)
  redis.call('DEL', KEYS[6])
  return 1
end
prune(queue, alive)
if not redis.call('ZSCORE', queue, ticket) then
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

# Give the lease back and hand it to the next waiter. KEYS: lease queue alive wake_prefix
# ARGV: token grant_ms. Returns 1 released, 0 not held any more.
RELEASE = LuaScript(
    _HANDOFF
    + r"""
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
handoff(KEYS[1], KEYS[2], KEYS[3], KEYS[4], tonumber(ARGV[2]))
return 1
"""
)

# Stop waiting. KEYS: lease queue alive wake_prefix wake  ARGV: ticket grant_ms.
# Returns 1 when the lease had been handed over meanwhile (the caller holds it).
CANCEL = LuaScript(
    _HANDOFF
    + r"""
if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('DEL', KEYS[5])
if redis.call('EXISTS', KEYS[1]) == 0 then
  handoff(KEYS[1], KEYS[2], KEYS[3], KEYS[4], tonumber(ARGV[2]))
end
return 0
"""
)
