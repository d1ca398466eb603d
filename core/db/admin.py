"""Admin operations over any store: the one path for list, dump, history, restore,
delete, export and import. Chat ``/state`` and ``statebot state`` both call these.

* Operations that change a session hold its run lease (``db.session_lock``) and save
  with ``lease=`` (fencing), so they never interleave with a run, in this process or
  another. Pass the store the bots serve from (RedisDb with its durable store as
  ``snapshot_to``) and a change reaches the hot and the durable copy together.
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from core.db.base import BaseDb, HistoryEntry, SessionMeta, SessionRecord, StoreError
from core.db.limits import StateLimits
from core.exceptions import ImportFileError as ImportFileError
from core.exceptions import ImportWriteError as ImportWriteError
from core.exceptions import SessionNotFoundError as SessionNotFoundError
from core.exceptions import VersionNotFoundError as VersionNotFoundError
from core.redaction import REDACTED, redact, redact_text
from core.state.codec import encode_delta
from core.state.values import StateValueError

__all__ = [
    "REDACTED",
    "ExportResult",
    "ImportFileError",
    "ImportWriteError",
    "SessionNotFoundError",
    "VersionNotFoundError",
    "delete_session",
    "dump_session",
    "export_jsonl",
    "import_jsonl",
    "list_sessions",
    "parse_jsonl",
    "redact",
    "restore_version",
    "session_history",
    "summary",
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
    db: BaseDb, session_id: str, version: int, *, actor: str | None = None
) -> int:
    """Make ``version`` current again, saved as a new version under the lease; the new one."""
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        target = await _find_version(db, session_id, version)
        return await db.asave(
            session_id,
            expected_version=current.version,
            changed=encode_delta(target.state),
            removed=set(current.texts) - set(target.state),
            meta=SessionMeta(
                kind=current.kind, owner_id=current.owner_id, user_id=actor or "restore"
            ),
            lease=lease,
        )


async def reset_session(db: BaseDb, session_id: str, *, actor: str | None = None) -> int:
    """Empty the state as a new version under the lease (history kept); the new version.

    The owner's default state does not come back (only a new or deleted session starts
    from it); a reset keeps the session, its run history and its older versions.
    """
    async with db.session_lock(session_id) as lease:
        current = await load_session(db, session_id)
        return await db.asave(
            session_id,
            expected_version=current.version,
            changed={},
            removed=set(current.texts),
            meta=SessionMeta(
                kind=current.kind, owner_id=current.owner_id, user_id=actor or "reset"
            ),
            lease=lease,
        )


async def _find_version(db: BaseDb, session_id: str, version: int) -> HistoryEntry:
    entries = await db.ahistory(session_id, limit=_RESTORE_SCAN)
    for entry in entries:
        if entry.version == version:
            return entry
    raise VersionNotFoundError(session_id, version, [e.version for e in entries])


async def delete_session(db: BaseDb, session_id: str) -> None:
    """Delete a session, its history and its schedules (hot and durable copies), under its lease."""
    from core.schedule.stores import erase_session_schedules  # core.schedule builds on core.db

    async with db.session_lock(session_id):
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
    if record.data:  # run history and name, as JSON (not as escaped text)
        line["data"] = json.loads(record.data)
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
    return json.dumps(data["data"], ensure_ascii=False, separators=(",", ":"))


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
        await db.asave(
            record.session_id,
            expected_version=current.version,
            changed=record.texts,
            removed=set(current.texts) - set(record.texts),
            meta=SessionMeta(kind=record.kind, owner_id=record.owner_id, user_id=record.user_id),
            lease=lease,
        )
