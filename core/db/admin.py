"""Admin operations over any store: the one path for list, dump, history, restore,
delete, export and import. Chat ``/state`` and ``statebot state`` both call these.

* Operations that change a session hold its run lease (``db.session_lock``) and save
  with ``lease=`` (fencing), so they never interleave with a run, in this process or
  another. ``restore_version`` and ``delete_session`` take ``expected_version``: the
  version the caller decided on (a confirmation question, an erasure's classification);
  if the session moved on since, they refuse with StaleVersionError and change nothing.
  Pass the store the bots serve from (RedisDb with its durable store as ``snapshot_to``)
  and a change reaches the hot and the durable copy together.
* Every operation that saves records an audit entry (``core.state.audit``: who, which
  kind, the RFC 6902 patch) in the session's data, in the same save; ``audit_log``,
  ``diff_versions`` and ``describe`` read the trail, ``undo_last`` reverts a user's last
  change (docs/audit.md).
* Restore and undo across a schema migration (one rule, :func:`_restored_schema`): a
  restore to a version before a ``migrate`` entry labels the state with that entry's
  "from" schema version, so the next run migrates it again; a restore the trail no
  longer covers is refused (RestoreSchemaError) for a typed session; an undo across a
  migration is refused (UndoMigratedError).
* Dumps hide values under credential names (``core.redaction``) unless revealed.
* Exports are JSON Lines, one session per line (state, meta, version). A stored value
  JSON cannot carry never breaks an export: a non-finite or out-of-range timestamp is
  written as ``null`` and reported; a session that still cannot be written is skipped
  and reported, and the others are exported.
* Imports read data only (``json.loads``, never code) and validate the whole file
  before writing anything: versions fit a signed 64-bit integer, timestamps are
  finite, ids pass the stores' own id check (``StateLimits.check_ids``: bounded, no
  NUL characters). ``replace`` saves the file's
  state over an existing session as its next version (history kept), never
  delete-then-write. If a write still fails, the error names exactly which sessions
  were written and which were not.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from core.db.base import BaseDb, StoreError
from core.db.codec import encode_delta
from core.db.limits import StateLimits
from core.db.records import HistoryEntry, Lease, SessionMeta, SessionRecord
from core.db.values import StateValueError
from core.exceptions import ImportFileError as ImportFileError
from core.exceptions import ImportWriteError as ImportWriteError
from core.exceptions import NothingToUndoError as NothingToUndoError
from core.exceptions import RestoreSchemaError as RestoreSchemaError
from core.exceptions import SessionNotFoundError as SessionNotFoundError
from core.exceptions import StaleVersionError as StaleVersionError
from core.exceptions import UndoConflictError as UndoConflictError
from core.exceptions import UndoMigratedError as UndoMigratedError
from core.exceptions import VersionNotFoundError as VersionNotFoundError
from core.redaction import REDACTED, redact, redact_text
from core.run.history import SessionData, audit_lines
from core.state.audit import AuditEntry, build_entry, diff
from core.state.audit_text import describe as describe
from core.state.audit_text import summarize
from core.state.undo import apply_undo, change_to_undo, find_conflict, migration_since

__all__ = [
    "REDACTED",
    "AuditEntry",
    "ExportResult",
    "ImportFileError",
    "ImportWriteError",
    "NothingToUndoError",
    "RestoreSchemaError",
    "SessionNotFoundError",
    "StaleVersionError",
    "UndoConflictError",
    "UndoMigratedError",
    "UndoResult",
    "VersionNotFoundError",
    "audit_log",
    "delete_session",
    "describe",
    "diff_versions",
    "dump_session",
    "export_jsonl",
    "import_jsonl",
    "list_sessions",
    "parse_jsonl",
    "redact",
    "replace_state",
    "reset_session",
    "restore_version",
    "session_history",
    "summary",
    "undo_last",
]

#: the largest version a durable store can hold (a signed 64-bit BIGINT)
MAX_VERSION = 2**63 - 1
#: the latest timestamp a date can be shown for (9999-12-31T23:59:59Z)
MAX_TIMESTAMP = 253_402_300_799.0
#: how far back ``restore_version`` looks for the version asked for
_RESTORE_SCAN = 10_000

_ALL = sys.maxsize
_FIELDS = {
    "session_id",
    "version",
    "kind",
    "owner_id",
    "user_id",
    "created_at",
    "updated_at",
    "save_id",  # content identity of the version, kept so a re-import is recognised
}
_ID_FIELDS = ("session_id", "kind", "owner_id", "user_id")
_MAX_SAVE_ID = 64


@dataclass(slots=True)
class ExportResult:
    """What an export wrote: the count, sessions repaired on the way, sessions skipped."""

    count: int = 0
    #: sessions whose non-finite or out-of-range timestamps were written as null
    repaired: list[str] = field(default_factory=list)
    #: sessions that could not be written at all, with the reason
    skipped: dict[str, str] = field(default_factory=dict)


def _timestamp(value: Any) -> float | None:
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
        "created_at": _timestamp(record.created_at),
        "updated_at": _timestamp(record.updated_at),
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


async def load_session(db: BaseDb, session_id: str) -> SessionRecord:
    """The session as stored; SessionNotFoundError when there is none."""
    record = await db.aload(session_id)
    if record is None:
        raise SessionNotFoundError(session_id)
    return record


async def dump_session(
    db: BaseDb,
    session_id: str,
    *,
    reveal: bool = False,
    versions: int = 5,
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """State, meta and the most recent versions of one session (redacted by default)."""
    record = await load_session(db, session_id)
    dump = summary(record)
    del dump["keys"]
    dump["state"] = record.state if reveal else redact(record.state, extra)
    dump["redacted"] = not reveal
    dump["recent_versions"] = [
        {"version": e.version, "user_id": e.user_id, "saved_at": _timestamp(e.saved_at)}
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
    return [
        {
            "version": e.version,
            "user_id": e.user_id,
            "saved_at": _timestamp(e.saved_at),
            "state": e.state if reveal else redact(e.state, extra),
        }
        for e in await db.ahistory(session_id, limit=limit)
    ]


# -- changing one session (always under its lease) ------------------------------------
async def restore_version(
    db: BaseDb,
    session_id: str,
    version: int,
    *,
    actor: str | None = None,
    origin: Mapping[str, Any] | None = None,
    expected_version: int | None = None,
) -> int:
    """Make ``version`` current again, saved as a new version under the lease; the new one.

    Audited as ``restore`` (naming the version brought back) by ``actor``.
    ``expected_version``: refuse (StaleVersionError, nothing changed) unless the session
    is still at it. A typed session's state keeps the schema version ``version`` was
    saved in (:func:`_restored_schema`), so the next run migrates it if it is older.
    """
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        _check_expected(current, expected_version)
        target = await _find_version(db, session_id, version)
        schema = _restored_schema(current, version)
        saved, _ = await _save_change(
            db,
            lease,
            current,
            encode_delta(target.state),
            kind="restore",
            actor=actor,
            origin=origin,
            source_version=version,
            schema_version=schema,
        )
        return saved


def _check_expected(current: SessionRecord, expected_version: int | None) -> None:
    if expected_version is not None and current.version != expected_version:
        raise StaleVersionError(current.session_id, expected_version, current.version)


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


async def reset_session(
    db: BaseDb,
    session_id: str,
    *,
    actor: str | None = None,
    origin: Mapping[str, Any] | None = None,
) -> int:
    """Empty the state as a new version under the lease (history kept); the new version.

    The owner's default state does not come back (only a new or deleted session starts
    from it); a reset keeps the session, its run history and its older versions.
    Audited as ``reset`` by ``actor``.
    """
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        saved, _ = await _save_change(
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
    origin: Mapping[str, Any] | None = None,
) -> int:
    """Save ``state`` as the session's next version under its lease, audited as ``kind``
    ("migrate", …); the new version. StateValueError names a value that is not JSON."""
    texts = encode_delta(state)
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        saved, _ = await _save_change(
            db, lease, current, texts, kind=kind, actor=actor, origin=origin
        )
        return saved


async def _save_change(
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
    limits = _limits(db)
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


def _limits(db: BaseDb) -> StateLimits:
    limits = getattr(db, "limits", None)
    return limits if isinstance(limits, StateLimits) else StateLimits()


# -- the audit trail -------------------------------------------------------------------
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
    entries = await db.ahistory(session_id, limit=_RESTORE_SCAN)
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
    Either way nothing is saved. Rules: core.state.undo.
    """
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
        version, entry = await _save_change(
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


async def _find_version(db: BaseDb, session_id: str, version: int) -> HistoryEntry:
    entries = await db.ahistory(session_id, limit=_RESTORE_SCAN)
    for entry in entries:
        if entry.version == version:
            return entry
    raise VersionNotFoundError(session_id, version, [e.version for e in entries])


async def delete_session(
    db: BaseDb, session_id: str, *, expected_version: int | None = None
) -> None:
    """Delete a session, its history and its schedules (hot and durable copies), under its lease.

    ``expected_version``: refuse (StaleVersionError, nothing deleted) unless the session
    is still at that version (a run landed since the caller looked at it).
    """
    from core.schedule.stores import erase_session_schedules  # core.schedule builds on core.db

    async with db.session_lock(session_id):
        if expected_version is not None:
            _check_expected(await load_session(db, session_id), expected_version)
        existed = await db.adelete(session_id)
        # a reminder must not fire into a session that no longer exists
        await erase_session_schedules(db, session_id)
    if not existed:
        raise SessionNotFoundError(session_id)


# -- export ----------------------------------------------------------------------------
def export_line(record: SessionRecord) -> tuple[str, bool]:
    """One export line (no newline), and whether a timestamp had to be written as null."""
    line: dict[str, Any] = {k: getattr(record, k) for k in sorted(_FIELDS)}
    repaired = False
    for name in ("created_at", "updated_at"):
        line[name] = _timestamp(line[name])
        repaired = repaired or line[name] is None
    line["state"] = record.state
    if record.data:  # run history, name and audit trail, as JSON (not as escaped text)
        data = json.loads(record.data)
        if data.get("audit"):  # stored as JSON Lines in one string; exported as objects
            data["audit"] = [json.loads(entry) for entry in audit_lines(data["audit"])]
        line["data"] = data
    text = json.dumps(line, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text, repaired


async def export_jsonl(db: BaseDb, out: IO[str]) -> ExportResult:
    """Write every session as one JSON line, ordered by session id."""
    result = ExportResult()
    records = sorted(await db.alist_sessions(limit=_ALL), key=lambda r: r.session_id)
    for record in records:
        try:
            text, repaired = export_line(record)
        except (TypeError, ValueError) as exc:  # a stored value JSON cannot carry
            result.skipped[record.session_id] = redact_text(str(exc))
            continue
        out.write(text + "\n")
        result.count += 1
        if repaired:
            result.repaired.append(record.session_id)
    return result


# -- import ----------------------------------------------------------------------------
def parse_jsonl(lines: Iterable[str], limits: StateLimits | None = None) -> list[SessionRecord]:
    """Validate a whole export before anything is written; ImportFileError naming the line."""
    limits = limits or StateLimits()
    records: list[SessionRecord] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        record = _parse_line(number, raw, limits)
        if record.session_id in seen:
            first = seen[record.session_id]
            raise ImportFileError(
                number, f"session {record.session_id!r} already appeared on line {first}"
            )
        seen[record.session_id] = number
        records.append(record)
    return records


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _parse_line(number: int, raw: str, limits: StateLimits) -> SessionRecord:
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except ValueError as exc:
        raise ImportFileError(number, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ImportFileError(number, "expected a JSON object per line")
    unknown = set(data) - _FIELDS - {"state", "data"}
    if unknown:
        raise ImportFileError(number, f"unknown fields {sorted(unknown)}")
    data.setdefault("kind", "agent")
    try:
        _check_fields(data, limits)
        texts = encode_delta(data["state"])
        limits.check_keys(data["session_id"], texts)
        limits.check_size(data["session_id"], texts)
    except (StoreError, StateValueError, ValueError) as exc:
        raise ImportFileError(number, str(exc)) from None
    stamps = [data.get(name) for name in ("created_at", "updated_at")]
    return SessionRecord(
        session_id=data["session_id"],
        texts=texts,
        version=data["version"],
        kind=data["kind"],
        owner_id=data.get("owner_id"),
        user_id=data.get("user_id"),
        created_at=0.0 if stamps[0] is None else float(stamps[0]),
        updated_at=0.0 if stamps[1] is None else float(stamps[1]),
        save_id=data.get("save_id", ""),
        data=_session_data(data),
    )


def _session_data(data: dict[str, Any]) -> str:
    """The line's run history and name as the stores keep it (JSON text, "" for none)."""
    if data.get("data") is None:
        return ""
    body = data["data"]
    if body.get("audit"):  # exported as objects; stored as JSON Lines in one string
        body = {**body, "audit": "\n".join(audit_lines(body["audit"]))}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _check_fields(data: dict[str, Any], limits: StateLimits) -> None:
    """ValueError (or the store's InvalidIdError) naming the first field no store could hold."""
    for name in _ID_FIELDS:
        value = data.get(name)
        required = name in ("session_id", "kind")
        if value is None and not required:
            continue
        if not isinstance(value, str) or (required and not value):
            kind = "a non-empty string" if required else "a string or null"
            raise ValueError(f"{name} must be {kind}")
    # the stores' own id rule (NUL characters, length), so an import never writes an id
    # that a snapshot into PostgreSQL would refuse later
    limits.check_ids(data["session_id"], data["kind"], data.get("owner_id"), data.get("user_id"))
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAX_VERSION:
        raise ValueError(
            f"version must be an integer from 1 to {MAX_VERSION} (a signed 64-bit integer)"
        )
    if not isinstance(data.get("state"), dict):
        raise ValueError("state must be a JSON object")
    if data.get("data") is not None:
        if not isinstance(data["data"], dict):
            raise ValueError("data must be a JSON object (run history and name) or null")
        limits.check_data(data["session_id"], _session_data(data))
    save_id = data.get("save_id", "")
    if not isinstance(save_id, str) or len(save_id) > _MAX_SAVE_ID or not save_id.isprintable():
        raise ValueError(f"save_id must be printable text of at most {_MAX_SAVE_ID} characters")
    for name in ("created_at", "updated_at"):
        value = data.get(name)
        if value is not None and _timestamp(value) is None:
            raise ValueError(
                f"{name} must be null or a finite number of seconds since 1970 "
                f"(0 to {MAX_TIMESTAMP:.0f}), got {value!r}"
            )


async def import_jsonl(db: BaseDb, lines: Iterable[str], *, replace: bool = False) -> int:
    """Load an export into ``db``; the number of sessions written.

    Nothing is written unless the whole file is valid and, without ``replace``, none
    of its sessions exists. With ``replace`` an existing session gets the file's state
    as its next version, under its lease. A failed write raises ImportWriteError
    naming the sessions written and not written.
    """
    records = parse_jsonl(lines, getattr(db, "limits", None))
    existing = await db.aload_many(r.session_id for r in records)
    if existing and not replace:
        names = ", ".join(repr(s) for s in sorted(existing)[:5])
        raise ImportFileError(
            None, f"{len(existing)} session(s) already exist ({names}); use replace to overwrite"
        )
    written: list[str] = []
    for index, record in enumerate(records):
        try:
            await _write_one(db, record, replace=replace)
        except Exception as exc:  # any failure: say exactly where the import stands
            reason = redact_text(str(exc)) or type(exc).__name__
            rest = [r.session_id for r in records[index:]]
            raise ImportWriteError(record.session_id, reason, written, rest) from exc
        written.append(record.session_id)
    return len(written)


async def _write_one(db: BaseDb, record: SessionRecord, *, replace: bool) -> None:
    async with db.session_lock(record.session_id) as lease:
        current = await db.aload(record.session_id)
        if current is None:
            if not await db.aupsert_snapshot(record):
                raise StoreError("the store already holds a newer version of it")
            return
        if not replace:
            raise StoreError("it was created while the import ran; use replace to overwrite")
        # the file's state as the next version, audited; the session keeps its runs and
        # audit trail (a session the import creates gets the file's data as it was)
        await _save_change(
            db, lease, current, record.texts, kind="import", actor=record.user_id, origin=None
        )
