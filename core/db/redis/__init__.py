"""RedisDb: the hot session store (see docs/redis.md)."""

from core.db.redis.client import RoundTripCounter
from core.db.redis.store import LeaseLostError, RedisDb

__all__ = ["LeaseLostError", "RedisDb", "RoundTripCounter"]
