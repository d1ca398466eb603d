"""Where what a Discord card button runs waits for its click: Redis or process memory.

A ``custom_id`` holds at most 100 characters, fewer than a click needs, so the value
is kept under a digest and the button carries only the digest. With ``REDIS_URL``
every bot process reads the same values (a click may land on any of them, also after
a restart); without it they live in this process's memory.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Protocol

from bots.settings import Settings
from core.db.redis.client import RedisClient, connect

#: how long a card's buttons keep working
BUTTON_TTL = 30 * 86_400


class ButtonStore(Protocol):
    """Where what a button runs waits for its click, by digest."""

    async def put(self, value: str) -> str:
        """Keep ``value`` for BUTTON_TTL seconds; return its digest."""
        ...

    async def get(self, token: str) -> str | None:
        """The value under ``token``; None when unknown or expired."""
        ...


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


class RedisButtons:
    """Button values in Redis, readable by every bot process on the same URL."""

    __slots__ = ("_prefix", "_redis")

    def __init__(self, redis: RedisClient, prefix: str = "statebot:") -> None:
        self._redis = redis
        self._prefix = prefix

    async def put(self, value: str) -> str:
        """``SET card:<digest> <value> EX BUTTON_TTL``."""
        token = _digest(value)
        await self._redis.set(f"{self._prefix}card:{token}", value, ex=BUTTON_TTL)
        return token

    async def get(self, token: str) -> str | None:
        """``GET card:<digest>``."""
        raw = await self._redis.get(f"{self._prefix}card:{token}")
        return raw.decode() if isinstance(raw, bytes) else raw

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()


class MemoryButtons:
    """Button values in one process's memory; expiry on the injected clock."""

    __slots__ = ("_clock", "_items")

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, tuple[float, str]] = {}

    async def put(self, value: str) -> str:
        """Keep the value until BUTTON_TTL has passed."""
        token = _digest(value)
        self._items[token] = (self._clock() + BUTTON_TTL, value)
        return token

    async def get(self, token: str) -> str | None:
        """The value, unless unknown or expired."""
        found = self._items.get(token)
        return found[1] if found is not None and found[0] > self._clock() else None

    async def aclose(self) -> None:
        """Nothing to close."""


def buttons_for(settings: Settings) -> RedisButtons | MemoryButtons:
    """Redis-backed buttons when REDIS_URL is set (many processes), else in memory."""
    if settings.redis_url:
        return RedisButtons(connect(settings.redis_url))  # plain or cluster URL
    return MemoryButtons()
