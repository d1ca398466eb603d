"""Admin operations on one session: list, dump, history, restore, reset, replace, delete.

Chat ``/state``, the web console and ``statebot state`` all call these.

* Operations that change a session hold its run lease (``db.session_lock``) and save
  through the one admin save path (:mod:`core.governance.save`), so they never
  interleave with a run, in this process or another. ``restore_version`` and
  ``delete_session`` take ``expected_version``: the version the caller decided on (a
  confirmation question, an erasure's classification); if the session moved on since,
  they refuse with StaleVersionError and change nothing.
* Restore (``restore_version``) lives in :mod:`core.governance.restore` with its
  rules (counters only grow; the schema version across a migration); it is
  exported here too.
* Dumps hide values under credential names (``core.redaction``) unless revealed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.db.records import SessionRecord
from core.exceptions import (
    SessionNotFoundError,
    StoreError,
)
from core.governance.restore import restore_version
from core.governance.save import (
    check_expected,
    check_session_id,
    load_session,
    save_change,
)
from core.redaction import redact, redact_text
from core.schedule.stores import erase_session_schedules

__all__ = [
    "MAX_TIMESTAMP",
    "delete_session",
    "dump_session",
    "health",
    "list_sessions",
    "load_session",
    "replace_state",
    "reset_session",
    "restore_version",
    "session_history",
    "summary",
    "timestamp",
]

#: the latest timestamp a date can be shown for (9999-12-31T23:59:59Z)
MAX_TIMESTAMP = 253_402_300_799.0


def timestamp(value: object) -> float | None:
    """A timestamp an export and an import can carry, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0 <= number <= MAX_TIMESTAMP else None


# -- reading ---------------------------------------------------------------------------
def summary(record: SessionRecord) -> dict[str, Any]:
    """A session's meta, without its state (unreadable timestamps as None)."""
    return {
        "session_id": record.session_id,
        "version": record.version,
        "kind": record.kind,
        "owner_id": record.owner_id,
        "user_id": record.user_id,
        "created_at": timestamp(record.created_at),
        "updated_at": timestamp(record.updated_at),
        "keys": len(record.texts),
    }


async def health(db: BaseDb) -> dict[str, Any]:
    """Is the store reachable, how far do its snapshots lag, which sessions are parked."""
    report: dict[str, Any] = {"reachable": True}
    try:
        await db.aping()
        status = await db.asnapshot_status()
    except StoreError as exc:
        return {"reachable": False, "error": redact_text(str(exc))}
    if status is not None:
        report["dirty"] = status.dirty
        report["quarantined"] = len(status.quarantined)
        report["quarantined_sessions"] = [
            {"session_id": e.session_id, "version": e.version, "reason": redact_text(e.reason)}
            for e in status.quarantined
        ]
    return report


async def list_sessions(
    db: BaseDb, *, owner_id: str | None = None, limit: int = 100
) -> list[dict[str, Any]]:
    """Sessions (meta only), most recently updated first."""
    return [summary(r) for r in await db.alist_sessions(owner_id=owner_id, limit=limit)]


async def dump_session(
    db: BaseDb,
    session_id: str,
    *,
    reveal: bool = False,
    versions: int = 5,
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """State, meta and the most recent versions of one session (redacted by default)."""
    check_session_id(db, session_id)
    record = await load_session(db, session_id)
    dump = summary(record)
    del dump["keys"]
    dump["state"] = record.state if reveal else redact(record.state, extra)
    dump["redacted"] = not reveal
    dump["recent_versions"] = [
        {"version": e.version, "user_id": e.user_id, "saved_at": timestamp(e.saved_at)}
        for e in await db.ahistory(session_id, limit=versions)
    ]
    return dump


async def session_history(
    db: BaseDb,
    session_id: str,
    *,
    limit: int = 20,
    reveal: bool = False,
    extra: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Saved versions, newest first, states redacted unless ``reveal``."""
    check_session_id(db, session_id)
    return [
        {
            "version": e.version,
            "user_id": e.user_id,
            "saved_at": timestamp(e.saved_at),
            "state": e.state if reveal else redact(e.state, extra),
        }
        for e in await db.ahistory(session_id, limit=limit)
    ]


# -- changing one session (always under its lease) ------------------------------------
async def reset_session(
    db: BaseDb,
    session_id: str,
    *,
    actor: str | None = None,
    origin: Mapping[str, object] | None = None,
) -> int:
    """Empty the state as a new version under the lease (history kept); the new version.

    The owner's default state does not come back (only a new or deleted session starts
    from it); a reset keeps the session, its run history and its older versions.
    Audited as ``reset`` by ``actor``.
    """
    check_session_id(db, session_id)
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        saved, _ = await save_change(
            db, lease, current, {}, kind="reset", actor=actor, origin=origin
        )
        return saved


async def replace_state(
    db: BaseDb,
    session_id: str,
    state: Mapping[str, Any],
    *,
    kind: str,
    actor: str | None = None,
    origin: Mapping[str, object] | None = None,
) -> int:
    """Save ``state`` as the session's next version under its lease, audited as ``kind``
    ("migrate", …); the new version. StateValueError names a value that is not JSON."""
    check_session_id(db, session_id)
    texts = encode_delta(state)
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        saved, _ = await save_change(
            db, lease, current, texts, kind=kind, actor=actor, origin=origin
        )
        return saved


async def delete_session(
    db: BaseDb, session_id: str, *, expected_version: int | None = None
) -> None:
    """Delete a session, its history and its schedules (hot and durable copies), under its lease.

    ``expected_version``: refuse (StaleVersionError, nothing deleted) unless the session
    is still at that version (a run landed since the caller looked at it).
    """
    check_session_id(db, session_id)
    async with db.session_lock(session_id):
        if expected_version is not None:
            check_expected(await load_session(db, session_id), expected_version)
        existed = await db.adelete(session_id)
        # a reminder must not fire into a session that no longer exists
        await erase_session_schedules(db, session_id)
    if not existed:
        raise SessionNotFoundError(session_id)
