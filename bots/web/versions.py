"""The versions table of a session page: each kept version with what its audit entry says.

Who saved a version comes from the history (every version has it); *how* comes from
the audit trail in the session's data (``core.governance.audit``): a run and the
tools it used (with the platform and event on hover), or an admin's restore (of
which version), undo (of which change), reset, import or migration. The trail is
bounded, so the oldest versions may have no entry; their row says so rather than
guessing.
"""

from __future__ import annotations

from typing import Any

from bots.web.diffs import changed_keys
from core.db.records import SessionRecord
from core.governance.audit import audit_entries
from core.state.audit import AuditEntry

__all__ = ["describe_change", "version_rows"]


def version_rows(record: SessionRecord, versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``versions`` (newest first) with the keys each changed and its audit entry's
    description (``change``) and details (``origin``: platform, event, run)."""
    entries = {e.version: e for e in audit_entries(record)}
    older = [*versions[1:], None]
    for newer, before in zip(versions, older, strict=True):
        newer["changed"] = changed_keys(before["state"] if before else None, newer["state"])
        entry = entries.get(newer["version"])
        newer["change"] = describe_change(entry)
        newer["tools"] = list(entry.tools) if entry is not None else []
        newer["origin"] = _origin(entry)
    return versions


def describe_change(entry: AuditEntry | None) -> str:
    """How a version came about, in a few words, from its audit entry."""
    if entry is None:
        return "not in the audit trail (older than what it keeps)"
    source = f" of v{entry.source_version}" if entry.source_version is not None else ""
    if entry.kind == "run":
        return "run" + (" (created the session)" if entry.created else "")
    if entry.kind in ("restore", "undo"):
        return entry.kind + source
    if entry.kind == "migrate" and entry.schema_versions is not None:
        old, new = entry.schema_versions
        return f"migrate (schema {old} → {new})"
    return entry.kind


def _origin(entry: AuditEntry | None) -> str:
    """Where the change came from (platform, event and run ids), for the hover text."""
    if entry is None:
        return ""
    parts = [
        f"{label}: {value}"
        for label, value in (
            ("platform", entry.platform),
            ("event", entry.event_id),
            ("run", entry.run_id),
        )
        if value
    ]
    return ", ".join(parts)
