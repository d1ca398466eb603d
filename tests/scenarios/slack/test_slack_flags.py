"""Claims and marks: first claim wins, in memory and across Redis clients."""

from __future__ import annotations

import redis.asyncio as aioredis

from bots.adapters.slack.flags import MemoryFlags, RedisFlags


async def test_memory_claim_once_until_expiry() -> None:
    """A memory claim succeeds once, and again only after its ttl passes on the clock."""
    now = [100.0]
    flags = MemoryFlags(clock=lambda: now[0])
    assert await flags.claim("k", ttl=10)
    assert not await flags.claim("k", ttl=10)
    now[0] += 11
    assert await flags.claim("k", ttl=10)


async def test_memory_mark_and_has() -> None:
    """A mark is visible until it expires."""
    now = [0.0]
    flags = MemoryFlags(clock=lambda: now[0])
    assert not await flags.has("t")
    await flags.mark("t", ttl=5)
    assert await flags.has("t")
    now[0] = 6
    assert not await flags.has("t")


async def test_redis_claim_is_shared_between_clients(redis_url: str, key_prefix: str) -> None:
    """Two processes' clients on one Redis: only the first claim of a key wins."""
    one = RedisFlags(aioredis.Redis.from_url(redis_url), key_prefix)
    two = RedisFlags(aioredis.Redis.from_url(redis_url), key_prefix)
    try:
        assert await one.claim("slack:event:Ev1", ttl=60)
        assert not await two.claim("slack:event:Ev1", ttl=60)
        await two.mark("slack:thread:x", ttl=60)
        assert await one.has("slack:thread:x")
    finally:
        await one.aclose()
        await two.aclose()
