"""RedisDb: the hot session store (see docs/redis.md)."""

from __future__ import annotations

from core.db.redis.client import RoundTripCounter
from core.db.redis.store import RedisDb

# errors live in core.exceptions; this name stays importable from here too
from core.exceptions import LeaseLostError as LeaseLostError

__all__ = ["RedisDb", "RoundTripCounter"]
