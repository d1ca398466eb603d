"""The one admin save path: every admin change to a session is saved here.

The caller holds the session's lease (``db.session_lock``) and passes it on, so the
save is fenced against a run in this process or another; the whole new state and its
audit entry (``core.state.audit``: who, which kind, the RFC 6902 patch) go into one
save, in the session's data. Pass the store the bots serve from (RedisDb with its
durable store as ``snapshot_to``) and the change reaches the hot and the durable copy
together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.db.base import BaseDb
from core.db.limits import limits_of
from core.db.records import Lease, SessionMeta, SessionRecord
from core.exceptions import SessionNotFoundError, StaleVersionError
from core.run.history import SessionData
from core.state.audit import AuditEntry, build_entry

__all__ = ["HISTORY_SCAN", "check_expected", "limits_of", "load_session", "save_change"]

#: how far back admin operations look for a stored version
HISTORY_SCAN = 10_000


def check_session_id(db: BaseDb, session_id: str) -> None:
    """InvalidIdError, before any store sees it, for a session id no store can hold
    (NUL, over 1,024 bytes, a lone surrogate): every admin entry point calls it."""
    limits_of(db).check_id("session id", session_id)


def check_user_id(db: BaseDb, user_id: str) -> None:
    """InvalidIdError, before any store sees it, for a user id no store can hold."""
    limits_of(db).check_id("user id", user_id)


async def load_session(db: BaseDb, session_id: str) -> SessionRecord:
    """The session as stored; SessionNotFoundError when there is none."""
    check_session_id(db, session_id)
    record = await db.aload(session_id)
    if record is None:
        raise SessionNotFoundError(session_id)
    return record


def check_expected(current: SessionRecord, expected_version: int | None) -> None:
    """StaleVersionError unless the session is still at ``expected_version`` (None: any)."""
    if expected_version is not None and current.version != expected_version:
        raise StaleVersionError(current.session_id, expected_version, current.version)


async def save_change(
    db: BaseDb,
    lease: Lease,
    current: SessionRecord,
    texts: Mapping[str, str],
    *,
    kind: str,
    actor: str | None,
    origin: Mapping[str, Any] | None,
    source_version: int | None = None,
    schema_version: int | None = None,
) -> tuple[int, AuditEntry]:
    """Save ``texts`` as the whole new state of ``current`` (held under ``lease``), with
    its audit entry in the session's data, in one save; (new version, the entry).
    ``schema_version``: the schema version the new state is in (None: unchanged)."""
    changed = {k: t for k, t in texts.items() if current.texts.get(k) != t}
    removed = set(current.texts) - set(texts)
    limits = limits_of(db)
    entry = build_entry(
        version=current.version + 1,
        kind=kind,
        old={k: current.texts.get(k) for k in (*changed, *removed)},
        new={**changed, **dict.fromkeys(removed)},
        max_entry_bytes=limits.audit_bytes // 4,
        user_id=actor,
        origin=origin,
        source_version=source_version,
    )
    data = SessionData.decode(current.data)
    if schema_version is not None:
        data.schema_version = schema_version
    data.add_audit(entry.stored())
    version = await db.asave(
        current.session_id,
        expected_version=current.version,
        changed=changed,
        removed=removed,
        meta=SessionMeta(kind=current.kind, owner_id=current.owner_id, user_id=actor or kind),
        lease=lease,
        data=data.encode(limits),
    )
    return version, entry
