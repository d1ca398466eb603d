"""Restore: an old version's state becomes current, as a new version, under the lease.

The one restore path (chat ``/state``, ``statebot state`` and the web console call
:func:`restore_version`); :func:`restore_plan` computes, without saving, exactly what
it would write, so the console can preview it. Two rules, decided here:

* **Counters only grow.** Keys the owner's schema marks as counters (``COUNTER``, e.g.
  the Taskboard's ``next_task_id``), recorded with the session by each run
  (``SessionData.counters``), keep the higher of the current and the restored value,
  so a number chat has already shown is never handed out again. Sessions no run has
  saved since counters were recorded have none to keep.
* **Schema version** (:func:`_restored_schema`): a restore to a version before a
  ``migrate`` entry labels the state with that entry's "from" schema version, so the
  next run migrates it again; a restore the trail no longer covers is refused
  (RestoreSchemaError) for a typed session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.db.records import HistoryEntry, SessionRecord
from core.exceptions import RestoreSchemaError, VersionNotFoundError
from core.governance.audit import audit_entries
from core.governance.save import (
    HISTORY_SCAN,
    check_expected,
    check_session_id,
    load_session,
    save_change,
)
from core.governance.undo import migration_since
from core.run.history import SessionData
from core.state.audit import AuditEntry

__all__ = ["RestorePlan", "RestoreResult", "restore", "restore_plan", "restore_version"]


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """What restoring ``version`` writes: the state, and the counters it keeps."""

    session_id: str
    version: int
    #: the session's version the plan was made against (a restore refuses if it moved)
    current_version: int
    current: dict[str, Any]
    state: dict[str, Any]
    #: counter key -> (the restored version's value, the value kept)
    kept: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    #: the schema version the restored state is in (None: untyped)
    schema_version: int | None = None


@dataclass(frozen=True, slots=True)
class RestoreResult:
    """A restore done: the version it saved, and the plan it saved (``plan.kept``)."""

    new_version: int
    plan: RestorePlan


async def restore_plan(db: BaseDb, session_id: str, version: int) -> RestorePlan:
    """What :func:`restore_version` would write now (nothing is saved).

    SessionNotFoundError, VersionNotFoundError and RestoreSchemaError as the restore.
    """
    check_session_id(db, session_id)
    current = await load_session(db, session_id)
    return _plan(current, await _find_version(db, session_id, version))


async def restore_version(
    db: BaseDb,
    session_id: str,
    version: int,
    *,
    actor: str | None = None,
    origin: Mapping[str, object] | None = None,
    expected_version: int | None = None,
) -> int:
    """Make ``version`` current again, saved as a new version under the lease; the new one.

    Audited as ``restore`` (naming the version brought back) by ``actor``; counters
    keep their higher value (module docstring). ``expected_version``: refuse
    (StaleVersionError, nothing changed) unless the session is still at it.
    :func:`restore` does the same and also says which counters it kept.
    """
    done = await restore(
        db, session_id, version, actor=actor, origin=origin, expected_version=expected_version
    )
    return done.new_version


async def restore(
    db: BaseDb,
    session_id: str,
    version: int,
    *,
    actor: str | None = None,
    origin: Mapping[str, object] | None = None,
    expected_version: int | None = None,
) -> RestoreResult:
    """:func:`restore_version`, answering with the new version and the plan it saved."""
    check_session_id(db, session_id)
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        check_expected(current, expected_version)
        plan = _plan(current, await _find_version(db, session_id, version))
        saved, _ = await save_change(
            db,
            lease,
            current,
            encode_delta(plan.state),
            kind="restore",
            actor=actor,
            origin=origin,
            source_version=version,
            schema_version=plan.schema_version,
        )
        return RestoreResult(saved, plan)


def _plan(current: SessionRecord, target: HistoryEntry) -> RestorePlan:
    """The restore of ``target`` over ``current``: counters kept, schema version read."""
    schema = _restored_schema(current, target.version)
    counters = SessionData.decode(current.data).counters if current.data else []
    now = current.state
    state = dict(target.state)
    kept: dict[str, tuple[Any, Any]] = {}
    for key in counters:
        have, had = _count(now.get(key)), _count(state.get(key))
        if have is not None and (had is None or had < have):
            kept[key] = (state.get(key), have)
            state[key] = have
    return RestorePlan(
        session_id=current.session_id,
        version=target.version,
        current_version=current.version,
        current=now,
        state=state,
        kept=kept,
        schema_version=schema,
    )


def _count(value: object) -> int | None:
    """``value`` as a counter's number (an int, not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _restored_schema(current: SessionRecord, version: int) -> int | None:
    """The schema version the state of ``version`` is in, read from the audit trail.

    The first ``migrate`` entry after ``version`` names it (its "from"). With none, the
    state is in the session's current schema version, provided the trail reaches back
    to ``version``: entries are dropped oldest first, so an oldest entry no later than
    ``version + 1``, or the session's creating one, proves none after ``version`` was
    dropped. Else a typed session is refused with RestoreSchemaError.
    """
    schema = SessionData.decode(current.data).schema_version if current.data else None
    entries = audit_entries(current)
    migrated = migration_since(AuditEntry(version=version, at=0.0, kind="restore"), entries)
    if migrated is not None and migrated.schema_versions is not None:
        return migrated.schema_versions[0]
    oldest = entries[0] if entries else None
    covered = oldest is not None and (oldest.version <= version + 1 or oldest.created)
    if schema is not None and (migrated is not None or not covered):
        raise RestoreSchemaError(
            current.session_id, version, oldest.version if oldest else None, schema
        )
    return schema


async def _find_version(db: BaseDb, session_id: str, version: int) -> HistoryEntry:
    entries = await db.ahistory(session_id, limit=HISTORY_SCAN)
    for entry in entries:
        if entry.version == version:
            return entry
    raise VersionNotFoundError(session_id, version, [e.version for e in entries])
