"""Export and import of sessions as JSON Lines, one session per line (state, meta, version).

* A stored value JSON cannot carry never breaks an export: a non-finite or
  out-of-range timestamp is written as ``null`` and reported; a session that still
  cannot be written is skipped and reported, and the others are exported.
* Imports read data only (``json.loads``, never code) and validate the whole file
  before writing anything: versions fit a signed 64-bit integer, timestamps are
  finite and not in the future, ids pass the stores' own id check
  (``StateLimits.check_ids``: bounded, no NUL characters). A missing, null or 0
  timestamp is the import time, so a session is never stored as last updated in 1970 (the next
  retention pass would delete it at once). ``replace`` saves the file's state over
  an existing session as its next version (history kept, audited as ``import``),
  never delete-then-write. If a write still fails, the error names exactly which
  sessions were written and which were not.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from core.db.base import BaseDb
from core.db.codec import encode_delta
from core.db.limits import StateLimits
from core.db.records import SessionRecord
from core.db.values import StateValueError
from core.exceptions import ImportFileError, ImportWriteError, StoreError
from core.governance.save import save_change
from core.governance.sessions import MAX_TIMESTAMP, timestamp
from core.redaction import redact_text
from core.run.history import audit_lines

__all__ = [
    "CLOCK_SKEW",
    "MAX_VERSION",
    "ExportResult",
    "export_jsonl",
    "export_line",
    "import_jsonl",
    "parse_jsonl",
]

#: the largest version a durable store can hold (a signed 64-bit BIGINT)
MAX_VERSION = 2**63 - 1

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
#: how far ahead of the importing machine's clock a timestamp may be (the exporting
#: machine's clock may run a little ahead); later is refused, as retention and the
#: listings order by it
CLOCK_SKEW = 300.0


@dataclass(slots=True)
class ExportResult:
    """What an export wrote: the count, sessions repaired on the way, sessions skipped."""

    count: int = 0
    #: sessions whose non-finite or out-of-range timestamps were written as null
    repaired: list[str] = field(default_factory=list)
    #: sessions that could not be written at all, with the reason
    skipped: dict[str, str] = field(default_factory=dict)


# -- export ----------------------------------------------------------------------------
def export_line(record: SessionRecord) -> tuple[str, bool]:
    """One export line (no newline), and whether a timestamp had to be written as null."""
    line: dict[str, Any] = {k: getattr(record, k) for k in sorted(_FIELDS)}
    repaired = False
    for name in ("created_at", "updated_at"):
        line[name] = timestamp(line[name])
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
def parse_jsonl(
    lines: Iterable[str], limits: StateLimits | None = None, *, now: float | None = None
) -> list[SessionRecord]:
    """Validate a whole export before anything is written; ImportFileError naming the line.

    ``now`` (default: the clock) is the import time missing timestamps take.
    """
    limits = limits or StateLimits()
    now = time.time() if now is None else now
    records: list[SessionRecord] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip(_JSON_SPACE):  # str.strip() would also drop \x1c and the like
            continue
        record = _parse_line(number, raw, limits, now)
        if record.session_id in seen:
            first = seen[record.session_id]
            raise ImportFileError(
                number, f"session {record.session_id!r} already appeared on line {first}"
            )
        seen[record.session_id] = number
        records.append(record)
    return records


#: JSON's whitespace (RFC 8259): a line of only these is blank
_JSON_SPACE = " \t\r\n"


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _parse_line(number: int, raw: str, limits: StateLimits, now: float) -> SessionRecord:
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except ValueError as exc:
        raise ImportFileError(number, f"not valid JSON ({exc})") from None
    except RecursionError:  # json gives up near Python's recursion limit
        raise ImportFileError(number, "nested too deeply to read") from None
    if not isinstance(data, dict):
        raise ImportFileError(number, "expected a JSON object per line")
    unknown = set(data) - _FIELDS - {"state", "data"}
    if unknown:
        raise ImportFileError(number, f"unknown fields {sorted(unknown)}")
    data.setdefault("kind", "agent")
    try:
        _check_fields(data, limits, now)
        texts = encode_delta(data["state"])
        limits.check_keys(data["session_id"], texts)
        limits.check_size(data["session_id"], texts)
    except (StoreError, StateValueError, ValueError) as exc:
        raise ImportFileError(number, str(exc)) from None
    # missing, null or 0 (a record's "unknown", e.g. a session an older import stored
    # without times): the import time, as 1970 is expired by the next retention pass;
    # a session is never created after its last update
    updated = float(data.get("updated_at") or now)
    created = float(data.get("created_at") or min(now, updated))
    return SessionRecord(
        session_id=data["session_id"],
        texts=texts,
        version=data["version"],
        kind=data["kind"],
        owner_id=data.get("owner_id"),
        user_id=data.get("user_id"),
        created_at=created,
        updated_at=updated,
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


def _check_fields(data: dict[str, Any], limits: StateLimits, now: float) -> None:
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
        if value is not None and timestamp(value) is None:
            raise ValueError(
                f"{name} must be null or a finite number of seconds since 1970 "
                f"(0 to {MAX_TIMESTAMP:.0f}), got {value!r}"
            )
        if value is not None and value > now + CLOCK_SKEW:
            raise ValueError(
                f"{name} {value!r} is in the future (the import time is {now:.0f}); "
                "fix or remove it (a missing timestamp is the import time)"
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
        await save_change(
            db, lease, current, record.texts, kind="import", actor=record.user_id, origin=None
        )
