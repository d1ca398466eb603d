"""RedisDb: the hot session store (see docs/redis.md)."""

from core.db.base import LeaseLostError
from core.db.redis.client import RoundTripCounter
from core.db.redis.store import RedisDb

__all__ = ["LeaseLostError", "RedisDb", "RoundTripCounter"]
