"""Admin operations over any store: inspect, restore, delete, export and import.

Dumps hide values whose key matches a sensitive pattern unless asked to reveal them.
Exports are JSON Lines, one session per line (state, meta and version). Imports read
data only — ``json.loads``, never code — and validate every line before writing any:
a bad line is an error naming its number, and nothing from that import is written.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

from core.db.base import BaseDb, SessionRecord, StoreError
from core.db.limits import StateLimits, dump_delta
from core.state.values import StateValueError

DEFAULT_SENSITIVE_PATTERNS: tuple[str, ...] = (
    "*password*",
    "*passwd*",
    "*token*",
    "*secret*",
    "*api_key*",
    "*apikey*",
    "*credential*",
    "*private_key*",
    "*cookie*",
)
REDACTED = "***redacted***"

_ALL = sys.maxsize
_FIELDS = {"session_id", "version", "kind", "owner_id", "user_id", "created_at", "updated_at"}


class SessionNotFoundError(StoreError, LookupError):
    """The named session does not exist."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session {session_id!r}")
        self.session_id = session_id


class ImportFileError(StoreError, ValueError):
    """An import file that cannot be used; nothing from it was written."""

    def __init__(self, line: int | None, reason: str) -> None:
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{reason}; nothing was imported")
        self.line = line


def redact(value: Any, patterns: Sequence[str] = DEFAULT_SENSITIVE_PATTERNS) -> Any:
    """A copy of ``value`` with values under sensitive keys replaced, at any depth."""
    lowered = [p.lower() for p in patterns]
    return _redact(value, lowered)


def _redact(value: Any, patterns: list[str]) -> Any:
    if isinstance(value, dict):
        return {
            k: REDACTED if _sensitive(k, patterns) else _redact(v, patterns)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [_redact(item, patterns) for item in value]
    return value


def _sensitive(key: Any, patterns: list[str]) -> bool:
    name = str(key).lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def summary(record: SessionRecord) -> dict[str, Any]:
    """A session's meta, without its state."""
    return {
        "session_id": record.session_id,
        "version": record.version,
        "kind": record.kind,
        "owner_id": record.owner_id,
        "user_id": record.user_id,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
        "keys": len(record.state),
    }


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
    patterns: Sequence[str] = DEFAULT_SENSITIVE_PATTERNS,
) -> dict[str, Any]:
    """State, meta and the most recent versions of one session (redacted by default)."""
    record = await db.aload(session_id)
    if record is None:
        raise SessionNotFoundError(session_id)
    dump = summary(record)
    del dump["keys"]
    dump["state"] = record.state if reveal else redact(record.state, patterns)
    dump["redacted"] = not reveal
    dump["recent_versions"] = [
        {"version": e.version, "user_id": e.user_id, "saved_at": e.saved_at}
        for e in await db.ahistory(session_id, limit=versions)
    ]
    return dump


async def session_history(
    db: BaseDb,
    session_id: str,
    *,
    limit: int = 20,
    reveal: bool = False,
    patterns: Sequence[str] = DEFAULT_SENSITIVE_PATTERNS,
) -> list[dict[str, Any]]:
    """Saved versions, newest first, states redacted unless ``reveal``."""
    return [
        {
            "version": e.version,
            "user_id": e.user_id,
            "saved_at": e.saved_at,
            "state": e.state if reveal else redact(e.state, patterns),
        }
        for e in await db.ahistory(session_id, limit=limit)
    ]


async def restore_version(db: BaseDb, session_id: str, version: int) -> int:
    """Make ``version`` current again (saved as a new version); the new version."""
    if await db.aload(session_id) is None:
        raise SessionNotFoundError(session_id)
    return await db.arestore(session_id, version)


async def delete_session(db: BaseDb, session_id: str) -> None:
    """Delete a session and its history."""
    if not await db.adelete(session_id):
        raise SessionNotFoundError(session_id)


def to_json_line(record: SessionRecord) -> str:
    """One export line (no trailing newline)."""
    line = {k: getattr(record, k) for k in sorted(_FIELDS)}
    line["state"] = record.state
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


async def export_jsonl(db: BaseDb, out: IO[str]) -> int:
    """Write every session as one JSON line, ordered by session id; the count."""
    records = sorted(await db.alist_sessions(limit=_ALL), key=lambda r: r.session_id)
    for record in records:
        out.write(to_json_line(record) + "\n")
    return len(records)


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


def _parse_line(number: int, raw: str, limits: StateLimits) -> SessionRecord:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ImportFileError(number, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ImportFileError(number, "expected a JSON object per line")
    unknown = set(data) - _FIELDS - {"state"}
    if unknown:
        raise ImportFileError(number, f"unknown fields {sorted(unknown)}")
    sid, version, state = data.get("session_id"), data.get("version"), data.get("state")
    if not isinstance(sid, str) or not sid:
        raise ImportFileError(number, "session_id must be a non-empty string")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ImportFileError(number, "version must be a positive integer")
    if not isinstance(state, dict):
        raise ImportFileError(number, "state must be a JSON object")
    for name in ("owner_id", "user_id"):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise ImportFileError(number, f"{name} must be a string or null")
    kind = data.get("kind", "agent")
    if not isinstance(kind, str):
        raise ImportFileError(number, "kind must be a string")
    stamps = [data.get(name, 0.0) for name in ("created_at", "updated_at")]
    if any(isinstance(s, bool) or not isinstance(s, int | float) for s in stamps):
        raise ImportFileError(number, "created_at and updated_at must be numbers")
    try:
        texts = dump_delta(state)
        limits.check_keys(sid, texts)
        limits.check_size(sid, texts)
    except (StoreError, StateValueError) as exc:
        raise ImportFileError(number, str(exc)) from None
    return SessionRecord(
        session_id=sid,
        state=state,
        version=version,
        kind=kind,
        owner_id=data.get("owner_id"),
        user_id=data.get("user_id"),
        created_at=float(stamps[0]),
        updated_at=float(stamps[1]),
    )


async def import_jsonl(db: BaseDb, lines: Iterable[str], *, replace: bool = False) -> int:
    """Load an export into ``db``; the number of sessions written.

    Sessions that already exist are an error unless ``replace``, in which case they
    are deleted (with their history) and written from the file.
    """
    records = parse_jsonl(lines, getattr(db, "limits", None))
    existing = await db.aload_many(r.session_id for r in records)
    if existing and not replace:
        names = ", ".join(repr(s) for s in sorted(existing)[:5])
        raise ImportFileError(
            None, f"{len(existing)} session(s) already exist ({names}); use replace to overwrite"
        )
    for record in records:
        if record.session_id in existing:
            await db.adelete(record.session_id)
        await db.aupsert_snapshot(record)
    return len(records)
