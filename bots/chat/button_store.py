"""Where what a button runs waits for its click, for platforms whose buttons are small.

Discord's ``custom_id`` holds 100 characters and Telegram's ``callback_data`` 64 bytes,
fewer than a click needs (:func:`bots.chat.cards.button_value`,
:meth:`bots.chat.approvals.Approval.encode`), so the value is kept under a digest of
itself and the button carries only the digest. With ``REDIS_URL`` every bot process
reads the same values (a click may land on any of them, also after a restart); without
it they live in this process's memory. Only the bot writes its buttons, and a digest
names exactly one value.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Protocol

from bots.settings import Settings
from core.db.redis.client import RedisClient, connect

__all__ = ["BUTTON_TTL", "ButtonStore", "MemoryButtons", "RedisButtons", "buttons_for"]

#: how long a button keeps working (a paused run waits in its session longer)
BUTTON_TTL = 30 * 86_400


class ButtonStore(Protocol):
    """Where what a button runs waits for its click, by digest."""

    async def put(self, value: str) -> str:
        """Keep ``value`` for BUTTON_TTL seconds; return its digest."""
        ...

    async def get(self, token: str) -> str | None:
        """The value under ``token``; None when unknown or expired."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


class RedisButtons:
    """Button values in Redis under ``<prefix><kind>:<digest>``, shared by every process."""

    __slots__ = ("_kind", "_prefix", "_redis")

    def __init__(self, redis: RedisClient, prefix: str = "statebot:", kind: str = "card") -> None:
        self._redis = redis
        self._prefix = prefix
        self._kind = kind

    async def put(self, value: str) -> str:
        """``SET <kind>:<digest> <value> EX BUTTON_TTL``."""
        token = _digest(value)
        await self._redis.set(self._key(token), value, ex=BUTTON_TTL)
        return token

    async def get(self, token: str) -> str | None:
        """``GET <kind>:<digest>``."""
        raw = await self._redis.get(self._key(token))
        return raw.decode() if isinstance(raw, bytes) else raw

    def _key(self, token: str) -> str:
        return f"{self._prefix}{self._kind}:{token}"

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


def buttons_for(
    settings: Settings, *, prefix: str = "statebot:", kind: str = "card"
) -> RedisButtons | MemoryButtons:
    """Redis-backed buttons when REDIS_URL is set (many processes), else in memory."""
    if settings.redis_url:
        return RedisButtons(connect(settings.redis_url), prefix, kind)  # plain or cluster URL
    return MemoryButtons()
