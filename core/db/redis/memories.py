"""User memories in Redis, for a RedisDb without a durable store: a hash per user."""

from __future__ import annotations

import json

from core.db.records import UserMemory
from core.db.redis.client import RedisClients
from core.db.redis.keys import session_hash


class RedisMemories:
    """One hash per user: memory id -> JSON of the memory."""

    __slots__ = ("_clients", "_prefix")

    def __init__(self, clients: RedisClients, prefix: str) -> None:
        self._clients = clients
        self._prefix = prefix

    def _key(self, user_id: str) -> str:
        return f"{self._prefix}mem:{session_hash(user_id)}"

    async def get(self, user_id: str) -> list[UserMemory]:
        """Everything remembered about a user, oldest first."""
        with self._clients.unavailable("read memories"):
            values = await self._clients.get().hvals(self._key(user_id))
        memories = [_from_json(str(v)) for v in values]
        return sorted(memories, key=lambda m: m.created_at)

    async def add(self, memory: UserMemory) -> UserMemory:
        """Remember a fact (same id replaces)."""
        text = json.dumps(
            {
                "memory_id": memory.memory_id,
                "user_id": memory.user_id,
                "memory": memory.memory,
                "topics": list(memory.topics),
                "created_at": memory.created_at,
            }
        )
        with self._clients.unavailable("save a memory"):
            await self._clients.get().hset(self._key(memory.user_id), memory.memory_id, text)
        return memory

    async def delete(self, user_id: str, memory_id: str) -> bool:
        """Forget one fact; True when it existed."""
        with self._clients.unavailable("delete a memory"):
            return bool(await self._clients.get().hdel(self._key(user_id), memory_id))


def _from_json(text: str) -> UserMemory:
    data = json.loads(text)
    return UserMemory(
        memory_id=data["memory_id"],
        user_id=data["user_id"],
        memory=data["memory"],
        topics=tuple(data["topics"]),
        created_at=data["created_at"],
    )
