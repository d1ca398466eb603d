"""The audit trail of a session: read it, diff two versions, undo a user's last change.

Every admin save and every run save records an audit entry (who, which event and
tool, the RFC 6902 patch) in the session's data (docs/audit.md). An undo reverts a
user's last change as a new version under the lease, through the one admin save path;
the rules for what may be undone are :mod:`core.governance.undo`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.db.base import BaseDb
from core.db.records import SessionRecord
from core.exceptions import UndoConflictError, UndoMigratedError, VersionNotFoundError
from core.governance.save import (
    HISTORY_SCAN,
    check_session_id,
    check_user_id,
    load_session,
    save_change,
)
from core.governance.undo import apply_undo, change_to_undo, find_conflict, migration_since
from core.run.history import SessionData
from core.state.audit import AuditEntry, diff
from core.state.audit_text import describe as describe
from core.state.audit_text import summarize

__all__ = ["UndoResult", "audit_entries", "audit_log", "describe", "diff_versions", "undo_last"]


@dataclass(frozen=True, slots=True)
class UndoResult:
    """What an undo did: the version it undid, the new version, and a readable summary."""

    undone_version: int
    version: int
    summary: str
    entry: AuditEntry


def audit_entries(record: SessionRecord) -> list[AuditEntry]:
    """A session's audit entries, oldest first."""
    if not record.data:
        return []
    return [AuditEntry.from_dict(e) for e in SessionData.decode(record.data).audit_entries()]


async def audit_log(db: BaseDb, session_id: str, *, limit: int = 20) -> list[AuditEntry]:
    """The session's audit entries, newest first; SessionNotFoundError when there is none."""
    record = await load_session(db, session_id)
    return audit_entries(record)[::-1][: max(limit, 0)]


async def diff_versions(db: BaseDb, session_id: str, v1: int, v2: int) -> list[dict[str, Any]]:
    """RFC 6902 ops from version ``v1``'s state to ``v2``'s, from the stored versions.

    VersionNotFoundError names the versions kept when one is missing.
    """
    check_session_id(db, session_id)
    entries = await db.ahistory(session_id, limit=HISTORY_SCAN)
    if not entries:
        await load_session(db, session_id)  # SessionNotFoundError for no session at all
    states = {e.version: e.state for e in entries}
    for version in (v1, v2):
        if version not in states:
            raise VersionNotFoundError(session_id, version, sorted(states))
    return diff(states[v1], states[v2])


async def undo_last(
    db: BaseDb,
    session_id: str,
    user_id: str,
    *,
    origin: Mapping[str, Any] | None = None,
) -> UndoResult:
    """Revert ``user_id``'s last change in the session, as a new version under the lease.

    NothingToUndoError when the user has no change left to undo; UndoConflictError
    (naming the later version, its user and the path) when a later change touched
    what the undo would revert, UndoMigratedError when the state was migrated since.
    Either way nothing is saved. Rules: core.governance.undo.
    """
    check_session_id(db, session_id)
    check_user_id(db, user_id)
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        entries = audit_entries(current)
        target = change_to_undo(entries, user_id, session_id)
        migrated = migration_since(target, entries)
        if migrated is not None:
            raise UndoMigratedError(
                session_id, target.version, migrated.version, migrated.schema_versions
            )
        conflict = find_conflict(target, entries)
        if conflict is not None:
            later, path = conflict
            raise UndoConflictError(session_id, target.version, path, later.version, later.user_id)
        texts = dict(current.texts)
        for key, text in apply_undo(target, current.texts, session_id).items():
            if text is None:
                texts.pop(key, None)
            else:
                texts[key] = text
        version, entry = await save_change(
            db,
            lease,
            current,
            texts,
            kind="undo",
            actor=user_id,
            origin=origin,
            source_version=target.version,
        )
        summary = summarize(target.patch or (), target.inverse or ())
        return UndoResult(target.version, version, summary, entry)
