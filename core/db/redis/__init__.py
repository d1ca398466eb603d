"""RedisDb: the hot session store (see docs/redis.md)."""

from core.db.redis.client import RoundTripCounter
from core.db.redis.store import RedisDb
from core.exceptions import LeaseLostError

__all__ = ["LeaseLostError", "RedisDb", "RoundTripCounter"]
