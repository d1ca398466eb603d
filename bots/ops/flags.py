"""Cross-process flags: "claim once" and "remember" keys with an expiry.

Slack redelivers events (``X-Slack-Retry-Num``) and sends one message as both an
``app_mention`` and a ``message`` event, possibly to different processes; Discord
delivers a message to every process logged in on the same shard. A claim (Redis
``SET NX EX``) lets exactly one of them answer. Without Redis the flags live in
process memory, which is right for a single process only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from bots.settings import Settings
from core.db.redis.client import RedisClient, connect


class Flags(Protocol):
    """The storage seam for claims and marks."""

    async def claim(self, key: str, ttl: int) -> bool:
        """Set ``key`` if absent; True only for the first caller within ``ttl`` seconds."""
        ...

    async def mark(self, key: str, ttl: int) -> None:
        """Set ``key`` for ``ttl`` seconds (refreshing an existing mark)."""
        ...

    async def has(self, key: str) -> bool:
        """Whether ``key`` is set and not expired."""
        ...


class RedisFlags:
    """Flags in Redis, shared by every process using the same URL and prefix."""

    __slots__ = ("_prefix", "_redis")

    def __init__(self, redis: RedisClient, prefix: str = "statebot:") -> None:
        self._redis = redis
        self._prefix = prefix

    @classmethod
    def from_url(cls, url: str, prefix: str = "statebot:") -> RedisFlags:
        """Connect lazily to ``url``."""
        return cls(connect(url), prefix)  # plain or cluster URL

    async def claim(self, key: str, ttl: int) -> bool:
        """Atomic ``SET key 1 NX EX ttl``."""
        return bool(await self._redis.set(self._prefix + key, b"1", nx=True, ex=ttl))

    async def mark(self, key: str, ttl: int) -> None:
        """``SET key 1 EX ttl``."""
        await self._redis.set(self._prefix + key, b"1", ex=ttl)

    async def has(self, key: str) -> bool:
        """``EXISTS key``."""
        return bool(await self._redis.exists(self._prefix + key))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()


class MemoryFlags:
    """Flags in one process's memory; expiry follows the injected clock."""

    __slots__ = ("_clock", "_expires")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._expires: dict[str, float] = {}

    async def claim(self, key: str, ttl: int) -> bool:
        """First caller wins until the key expires."""
        if await self.has(key):
            return False
        self._expires[key] = self._clock() + ttl
        return True

    async def mark(self, key: str, ttl: int) -> None:
        """Set or refresh the key."""
        self._expires[key] = self._clock() + ttl

    async def has(self, key: str) -> bool:
        """Whether the key is set and unexpired (expired keys are dropped on sight)."""
        expiry = self._expires.get(key)
        if expiry is None:
            return False
        if expiry <= self._clock():
            del self._expires[key]
            return False
        return True

    async def aclose(self) -> None:
        """Nothing to close; present so both kinds shut down alike."""


def flags_for(settings: Settings) -> RedisFlags | MemoryFlags:
    """Redis-backed flags when REDIS_URL is set (many processes), else in memory."""
    if settings.redis_url:
        return RedisFlags.from_url(settings.redis_url)
    return MemoryFlags()
