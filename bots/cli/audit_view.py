"""``statebot state history`` and ``state diff`` as text: versions with who changed what.

Pure functions over what ``core.governance`` returns (saved versions, audit entries,
RFC 6902 ops), so the terminal wording is tested without a store. Values under
credential names are masked unless revealed, as in dumps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bots.app.cli_format import iso_time
from core.redaction import REDACTED, is_sensitive, redact
from core.state.audit import AuditEntry, tokens
from core.state.audit_text import ago, describe, describe_op


def history_lines(
    versions: Sequence[Mapping[str, Any]], entries: Iterable[AuditEntry], *, now: float
) -> list[str]:
    """One line per saved version, newest first: the audit entry's description, or who
    saved it and whether its state changed (a version without an entry)."""
    by_version = {e.version: e for e in entries}
    lines: list[str] = []
    for index, version in enumerate(versions):
        entry = by_version.pop(version["version"], None)
        if entry is not None:
            lines.append(describe(entry, now=now))
            continue
        older = versions[index + 1] if index + 1 < len(versions) else None
        if older is not None and older.get("state") == version.get("state"):
            what = "saved, state unchanged (run history only)"
        else:
            what = "saved (no audit record)"
        when = ago(now - version["saved_at"]) if version.get("saved_at") else "at an unknown time"
        lines.append(f"v{version['version']} {version.get('user_id') or 'someone'} {what} ({when})")
    # entries whose version the store no longer keeps (its history is shorter)
    for entry in sorted(by_version.values(), key=lambda e: -e.version):
        lines.append(describe(entry, now=now))
    return lines


def history_json(
    versions: Sequence[Mapping[str, Any]], entries: Iterable[AuditEntry]
) -> list[dict[str, Any]]:
    """The saved versions as JSON data, each with its audit entry ("change", or null)."""
    by_version = {e.version: e for e in entries}
    out: list[dict[str, Any]] = []
    for version in versions:
        row = {**version, "saved_at": iso_time(version.get("saved_at"))}
        entry = by_version.get(version["version"])
        row["change"] = None if entry is None else _entry_json(entry)
        out.append(row)
    return out


def _entry_json(entry: AuditEntry) -> dict[str, Any]:
    data = entry.to_dict()
    data["at"] = iso_time(entry.at)
    for name in ("patch", "inverse"):
        if data.get(name) is not None:
            data[name] = redact_ops(data[name])
    return data


def diff_lines(ops: Sequence[Mapping[str, Any]], back: Iterable[Mapping[str, Any]]) -> list[str]:
    """One line per op; ``back`` (the reverse diff) supplies old values for replacements."""
    before = {op["path"]: op.get("value") for op in back if op.get("op") in ("add", "replace")}
    return [describe_op(op, before) for op in ops]


def redact_ops(ops: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Ops with values under credential names masked (in the path or inside the value)."""
    out: list[dict[str, Any]] = []
    for op in ops:
        copy = dict(op)
        if "value" in copy:
            sensitive = any(is_sensitive(t) for t in tokens(str(copy.get("path", ""))))
            copy["value"] = REDACTED if sensitive else redact(copy["value"])
        out.append(copy)
    return out
