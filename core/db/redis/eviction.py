"""Redis's eviction policy: only ``noeviction`` keeps every key the store relies on.

Dirty sessions carry no TTL (they are PERSISTed until the snapshotter has copied
them), so no ``volatile-*`` policy evicts a change that exists nowhere else. But run
leases must carry one (a crashed holder's lease expires), as do waiters' queues,
event de-duplication marks and budget counters: under memory pressure a
``volatile-*`` policy evicts exactly those. A run whose lease was evicted is refused at
its save although no other run held the session (fencing keeps the state safe, the
refusal is still needless), and a redelivered event may run twice. ``allkeys-*`` may
also evict a session whose latest changes exist nowhere else. Under ``noeviction`` a
full Redis refuses the write instead, before it runs: :class:`StoreFullError`, nothing
written, and the reply says Redis is out of memory.

When a lease has vanished anyway (a server configured otherwise), the save's refusal
says why: :func:`lease_gone` asks the server whether it has been evicting.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError

from core.exceptions import LeaseGoneError
from core.utils.log import log_info, log_warning

#: the one policy under which Redis drops no key before its time
SAFE_POLICIES = ("noeviction",)


def eviction_problem(policy: str) -> str | None:
    """What ``policy`` can evict that the store relies on, or None when nothing."""
    if policy in SAFE_POLICIES:
        return None
    lost = (
        "sessions whose latest changes are not in the durable store yet, and "
        if policy.startswith("allkeys-")
        else ""
    )
    return (
        f"Redis maxmemory-policy is {policy!r}: under memory pressure it may evict "
        f"{lost}the run leases, queues and event marks that carry a TTL, so runs are "
        "refused although no other run holds their session and a redelivered event may "
        "run twice. Use noeviction: a full Redis then refuses writes and says so "
        "(docs/redis.md, 'Redis settings')."
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


async def lease_gone(client: Redis, session_id: str, version: int) -> LeaseGoneError:
    """The refusal of a save whose lease was in no one's hands: evicted, or expired."""
    evicted: int | None = None
    policy = "?"
    try:
        evicted = _evicted(await client.info("stats"))
        if evicted:
            reply = await client.config_get("maxmemory-policy")
            policy = str(reply.get("maxmemory-policy", "?"))
    except (RedisError, OSError, ValueError):  # the refusal stands; only its reason is vaguer
        pass
    if evicted:
        why = (
            f"Redis is out of memory and evicting keys (maxmemory-policy {policy}, "
            f"{evicted:,} evicted since it started); this run's lease was gone when it "
            "saved and no other run held the session. Set maxmemory-policy noeviction "
            "(docs/redis.md)"
        )
    elif evicted == 0:
        why = (
            "this run's lease had expired (or was let go at the run's deadline) when it "
            "saved, and no other run held the session"
        )
    else:
        why = (
            "this run's lease was gone when it saved (it expired, or a full Redis evicted "
            "it) and no other run held the session"
        )
    return LeaseGoneError(session_id, version, evicted=bool(evicted), why=why)


def _evicted(stats: dict[str, Any]) -> int:
    """``evicted_keys`` of one server, or summed over a cluster's nodes."""
    if "evicted_keys" in stats:
        return int(stats["evicted_keys"])
    return sum(
        int(node.get("evicted_keys", 0)) for node in stats.values() if isinstance(node, dict)
    )
