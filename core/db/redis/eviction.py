"""Is the Redis server's eviction policy safe for sessions that are not snapshotted yet?

Dirty sessions carry no TTL (they are PERSISTed until the snapshotter has copied them),
so the ``volatile-*`` policies only ever evict sessions that come back from the durable
store, and ``noeviction`` evicts nothing (a full Redis then refuses writes, which the
bots report as "storage unavailable"). ``allkeys-*`` may evict a session whose latest
changes exist nowhere else.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.exceptions import ResponseError

from core.utils.log import log_info, log_warning

SAFE_POLICIES = ("noeviction", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl")


def eviction_problem(policy: str) -> str | None:
    """Why ``policy`` can lose acknowledged state, or None when it cannot."""
    if policy in SAFE_POLICIES:
        return None
    return (
        f"Redis maxmemory-policy is {policy!r}: under memory pressure it may evict sessions "
        "whose latest changes are not in the durable store yet. Use noeviction or a "
        "volatile-* policy (docs/redis.md, 'Redis settings')."
    )


async def check_eviction_policy(client: Redis, location: str) -> str | None:
    """Read the policy (one round trip) and log a warning when it is unsafe."""
    try:
        reply = await client.config_get("maxmemory-policy")
    except ResponseError as exc:  # managed services often disable CONFIG
        log_info("could not read Redis maxmemory-policy", redis=location, error=str(exc))
        return None
    problem = eviction_problem(str(reply.get("maxmemory-policy", "")))
    if problem is not None:
        log_warning(problem, redis=location)
    return problem
