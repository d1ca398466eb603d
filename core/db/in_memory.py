"""InMemoryDb: the reference store, kept in process memory (tests, one-off scripts)."""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping
from typing import Any

from core.db.base import (
    BaseDb,
    HistoryEntry,
    Lease,
    SessionMeta,
    SessionRecord,
    StaleVersionError,
    UserMemory,
)
from core.state.values import dump_value


class InMemoryDb(BaseDb):
    """Sessions, history and user memories in dicts. Nothing survives the process."""

    def __init__(self, *, history_limit: int = 50) -> None:
        super().__init__()
        self.history_limit = history_limit
        self._sessions: dict[str, SessionRecord] = {}
        self._history: dict[str, list[HistoryEntry]] = {}
        self._memories: dict[str, list[UserMemory]] = {}

    async def aload(self, session_id: str) -> SessionRecord | None:
        record = self._sessions.get(session_id)
        if record is None:
            return None
        # hand out a copy: callers mutate the state they load
        return _replace_state(record, copy.deepcopy(record.state))

    async def asave(
        self,
        session_id: str,
        *,
        expected_version: int,
        changed: Mapping[str, Any],
        removed: frozenset[str] | set[str] = frozenset(),
        meta: SessionMeta = SessionMeta(),
        lease: Lease | None = None,
    ) -> int:
        for key, value in changed.items():
            dump_value(key, value)  # reject non-JSON values before touching anything
        current = self._sessions.get(session_id)
        actual = current.version if current else 0
        if actual != expected_version:
            raise StaleVersionError(session_id, expected_version, actual if current else None)
        now = time.time()
        state = dict(current.state) if current else {}
        for key in removed:
            state.pop(key, None)
        state.update(copy.deepcopy(dict(changed)))
        record = SessionRecord(
            session_id=session_id,
            state=state,
            version=actual + 1,
            kind=meta.kind,
            owner_id=meta.owner_id if meta.owner_id is not None else getattr(current, "owner_id", None),
            user_id=meta.user_id,
            created_at=current.created_at if current else now,
            updated_at=now,
        )
        self._sessions[session_id] = record
        history = self._history.setdefault(session_id, [])
        history.append(
            HistoryEntry(session_id, record.version, copy.deepcopy(state), meta.user_id, now)
        )
        del history[: -self.history_limit]
        return record.version

    async def adelete(self, session_id: str) -> bool:
        self._history.pop(session_id, None)
        return self._sessions.pop(session_id, None) is not None

    async def alist_sessions(
        self, *, owner_id: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        records = [
            r for r in self._sessions.values() if owner_id is None or r.owner_id == owner_id
        ]
        records.sort(key=lambda r: r.updated_at, reverse=True)
        return [_replace_state(r, copy.deepcopy(r.state)) for r in records[:limit]]

    async def ahistory(self, session_id: str, *, limit: int = 20) -> list[HistoryEntry]:
        return list(reversed(self._history.get(session_id, [])))[:limit]

    async def aget_memories(self, user_id: str) -> list[UserMemory]:
        return list(self._memories.get(user_id, []))

    async def aadd_memory(self, memory: UserMemory) -> UserMemory:
        self._memories.setdefault(memory.user_id, []).append(memory)
        return memory

    async def adelete_memory(self, user_id: str, memory_id: str) -> bool:
        memories = self._memories.get(user_id, [])
        kept = [m for m in memories if m.memory_id != memory_id]
        self._memories[user_id] = kept
        return len(kept) != len(memories)


def _replace_state(record: SessionRecord, state: dict[str, Any]) -> SessionRecord:
    return SessionRecord(
        session_id=record.session_id,
        state=state,
        version=record.version,
        kind=record.kind,
        owner_id=record.owner_id,
        user_id=record.user_id,
        created_at=record.created_at,
        updated_at=record.updated_at,
    )
