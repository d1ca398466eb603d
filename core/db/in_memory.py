"""InMemoryDb: the reference store, kept in process memory (tests, one-off scripts).

State is held as JSON text per top-level key, exactly as it crosses the storage seam:
saves splice the texts they are given, loads hand the same texts back (records decode
lazily, a fresh copy each time), and the size limit is kept as a running count per
session (each save adds and subtracts only the keys it changes), so a save never
re-measures the keys it does not touch.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from core.db.base import BaseDb
from core.db.codec import decode_state, entry_bytes, state_bytes
from core.db.data_parts import DataParts
from core.db.limits import StateLimits
from core.db.maintenance import RekeyCounts, UserRewrite
from core.db.records import (
    HistoryEntry,
    KnownVersion,
    Lease,
    SessionMeta,
    SessionRecord,
    UserMemory,
)
from core.exceptions import StaleVersionError, VersionConflictError


@dataclass(frozen=True, slots=True)
class _Stored:
    texts: dict[str, str]
    version: int
    kind: str
    owner_id: str | None
    user_id: str | None
    created_at: float
    updated_at: float
    save_id: str
    data: str = ""
    #: ``entry_bytes`` summed over ``texts`` (the running part of ``state_bytes``)
    member_bytes: int = 0

    @property
    def size(self) -> int:
        """``state_bytes(texts)``, from the running count."""
        return 2 + max(len(self.texts) - 1, 0) + self.member_bytes

    def record(self, session_id: str) -> SessionRecord:
        return SessionRecord(
            session_id=session_id,
            texts=MappingProxyType(self.texts),  # shared with the store: read-only
            version=self.version,
            kind=self.kind,
            owner_id=self.owner_id,
            user_id=self.user_id,
            created_at=self.created_at,
            updated_at=self.updated_at,
            save_id=self.save_id,
            data=self.data,
        )


@dataclass(frozen=True, slots=True)
class _Version:
    version: int
    texts: dict[str, str]
    user_id: str | None
    saved_at: float


class InMemoryDb(BaseDb):
    """Sessions, history and user memories in dicts. Nothing survives the process."""

    def __init__(self, *, history_limit: int = 50, limits: StateLimits | None = None) -> None:
        super().__init__()
        self.history_limit = history_limit
        self.limits = limits or StateLimits()
        self._sessions: dict[str, _Stored] = {}
        self._history: dict[str, list[_Version]] = {}
        self._memories: dict[str, list[UserMemory]] = {}

    async def aload(self, session_id: str) -> SessionRecord | None:
        stored = self._sessions.get(session_id)
        return None if stored is None else stored.record(session_id)

    async def asave(
        self,
        session_id: str,
        *,
        expected_version: int,
        changed: Mapping[str, str],
        removed: frozenset[str] | set[str] = frozenset(),
        meta: SessionMeta = SessionMeta(),
        lease: Lease | None = None,
        data: str | None = None,
        data_parts: DataParts | None = None,
        release: bool = False,
    ) -> int:
        self.limits.check_keys(session_id, changed)
        self.limits.check_ids(session_id, meta.user_id, meta.owner_id, meta.kind)
        self.limits.check_data(session_id, data)
        current = self._sessions.get(session_id)
        actual = current.version if current else 0
        if actual != expected_version:
            raise StaleVersionError(session_id, expected_version, actual if current else None)
        texts = dict(current.texts) if current else {}
        members = current.member_bytes if current else 0
        for key in removed:
            old = texts.pop(key, None)
            if old is not None:
                members -= entry_bytes(key, old)
        for key, text in changed.items():
            old = texts.get(key)
            if old is not None:
                members -= entry_bytes(key, old)
            members += entry_bytes(key, text)
            texts[key] = text
        if 2 + max(len(texts) - 1, 0) + members > self.limits.max_state_bytes:
            self.limits.check_size(session_id, texts)  # raises, naming the largest keys
        now = time.time()
        save_id = uuid.uuid4().hex
        self._put(
            session_id,
            _Stored(
                texts=texts,
                version=actual + 1,
                kind=meta.kind,
                owner_id=meta.owner_id if meta.owner_id is not None else _owner(current),
                user_id=meta.user_id,
                created_at=current.created_at if current else now,
                updated_at=now,
                save_id=save_id,
                data=data if data is not None else (current.data if current else ""),
                member_bytes=members,
            ),
        )
        if lease is not None:
            lease.saved = KnownVersion(actual + 1, save_id)
            if release:
                self._locks.release(lease)
        return actual + 1

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        texts = dict(record.texts)
        self.limits.check_ids(record.session_id, record.user_id, record.owner_id, record.kind)
        current = self._sessions.get(record.session_id)
        if current is not None and current.version >= record.version:
            same = current.version == record.version
            if same and current.save_id and record.save_id and current.save_id != record.save_id:
                raise VersionConflictError(
                    record.session_id, record.version, current.save_id, record.save_id
                )
            return False
        self._put(
            record.session_id,
            _Stored(
                texts=texts,
                version=record.version,
                kind=record.kind,
                owner_id=record.owner_id,
                user_id=record.user_id,
                created_at=record.created_at,
                updated_at=record.updated_at,
                save_id=record.save_id,
                data=record.data,
                member_bytes=state_bytes(texts) - 2 - max(len(texts) - 1, 0),
            ),
        )
        return True

    async def aload_many(self, session_ids: Iterable[str]) -> dict[str, SessionRecord]:
        return {
            sid: self._sessions[sid].record(sid)
            for sid in dict.fromkeys(session_ids)
            if sid in self._sessions
        }

    async def adelete(self, session_id: str, *, upto_version: int | None = None) -> bool:
        current = self._sessions.get(session_id)
        if upto_version is not None and current is not None and current.version > upto_version:
            return False
        self._history.pop(session_id, None)
        return self._sessions.pop(session_id, None) is not None

    async def alist_sessions(
        self, *, owner_id: str | None = None, limit: int = 100
    ) -> list[SessionRecord]:
        found = [
            (sid, s)
            for sid, s in self._sessions.items()
            if owner_id is None or s.owner_id == owner_id
        ]
        found.sort(key=lambda item: item[1].updated_at, reverse=True)
        return [s.record(sid) for sid, s in found[:limit]]

    async def ahistory(self, session_id: str, *, limit: int = 20) -> list[HistoryEntry]:
        newest_first = reversed(self._history.get(session_id, []))
        return [
            HistoryEntry(session_id, v.version, decode_state(v.texts), v.user_id, v.saved_at)
            for v in list(newest_first)[:limit]
        ]

    async def aget_memories(self, user_id: str) -> list[UserMemory]:
        memories = self._memories.get(user_id, [])
        return sorted(memories, key=lambda m: (m.created_at, m.memory_id))

    async def aadd_memory(self, memory: UserMemory) -> UserMemory:
        known = self._memories.get(memory.user_id, [])
        kept = [m for m in known if m.memory_id != memory.memory_id]
        self._memories[memory.user_id] = [*kept, memory]  # same id: the newer fact replaces it
        return memory

    async def adelete_memory(self, user_id: str, memory_id: str) -> bool:
        memories = self._memories.get(user_id, [])
        kept = [m for m in memories if m.memory_id != memory_id]
        if kept:
            self._memories[user_id] = kept
        else:  # no empty entry keyed by the user's id is left (erasure)
            self._memories.pop(user_id, None)
        return len(kept) != len(memories)

    async def ascrub_versions(self, session_id: str, rewrite: UserRewrite) -> int:
        """Take the user out of the versions kept in process memory; how many changed."""
        versions = self._history.get(session_id, [])
        rewritten = 0
        for i, version in enumerate(versions):
            changed, removed = rewrite.texts(version.texts)
            user = rewrite.user(version.user_id)
            if changed or removed or user != version.user_id:
                texts = {k: t for k, t in version.texts.items() if k not in removed} | changed
                versions[i] = replace(version, texts=texts, user_id=user)
                rewritten += 1
        return rewritten

    async def arekey(self, *, lock: bool = True) -> list[RekeyCounts]:
        raise ValueError("an in-memory store keeps state in process memory: nothing to rekey")

    def _put(self, session_id: str, stored: _Stored) -> None:
        self._sessions[session_id] = stored
        history = [v for v in self._history.get(session_id, []) if v.version != stored.version]
        history.append(_Version(stored.version, stored.texts, stored.user_id, stored.updated_at))
        history.sort(key=lambda v: v.version)
        # texts dicts are never mutated after they are stored, so versions share them
        self._history[session_id] = history[-self.history_limit :] if self.history_limit else []


def _owner(stored: _Stored | None) -> str | None:
    return None if stored is None else stored.owner_id
