"""Audit entries as readable lines: who did what, when ("v12 ana used complete_task: …").

Plain text only: user ids are written as stored (chat layers render them as mentions
themselves, or pass ``name``), values are shown as short JSON, and values under a
credential name (``core.redaction``) are masked, in the path or inside the value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.redaction import REDACTED, is_sensitive, redact
from core.state.audit import AuditEntry, tokens

__all__ = ["ago", "describe", "describe_op", "summarize"]

#: characters of a value shown in a summary
VALUE_CHARS = 40
#: changes named in one line before "and N more"
SHOWN_OPS = 2


def describe(entry: AuditEntry, *, now: float, name: str | None = None) -> str:
    """One line: version, who, what (tool and a short summary of the patch), when."""
    who = name or entry.user_id or "someone"
    return f"v{entry.version} {who} {_what(entry)} ({ago(now - entry.at)})"


def _what(entry: AuditEntry) -> str:
    if entry.patch is None:
        change = f"changed {', '.join(entry.keys) or 'the state'} (too large to show)"
    else:
        change = summarize(entry.patch, entry.inverse or ()) or "changed nothing"
    source = f"v{entry.source_version}" if entry.source_version is not None else "a version"
    if entry.kind == "undo":
        return f"undid {source}: {change}"
    if entry.kind == "restore":
        return f"restored {source}: {change}"
    if entry.kind == "reset":
        return f"reset the state: {change}"
    if entry.kind in ("import", "migrate"):
        return f"{entry.kind.rstrip('e')}ed the state: {change}"
    if entry.tools:
        return f"used {', '.join(entry.tools)}: {change}"
    return f"changed the state: {change}"


def summarize(patch: Sequence[Mapping[str, Any]], inverse: Iterable[Mapping[str, Any]] = ()) -> str:
    """The first changes of a patch, then "and N more" ("" for no change)."""
    before = {op["path"]: op.get("value") for op in inverse if op.get("op") in ("add", "replace")}
    parts = [describe_op(op, before) for op in patch[:SHOWN_OPS]]
    if len(patch) > SHOWN_OPS:
        parts.append(f"and {len(patch) - SHOWN_OPS} more")
    return ", ".join(parts)


def describe_op(op: Mapping[str, Any], before: Mapping[str, Any] | None = None) -> str:
    """One RFC 6902 op as words: "tasks/3/done: false → true", "added tasks/4"."""
    path = str(op.get("path", ""))
    where = _where(path)
    kind = op.get("op")
    if kind == "replace":
        new = _value(path, op.get("value"))
        if before is not None and path in before:
            return f"{where}: {_value(path, before[path])} → {new}"
        return f"{where} → {new}"
    if kind == "add":
        return f"added {_key_or_path(path)}"
    if kind == "remove":
        return f"removed {_key_or_path(path)}"
    if kind in ("move", "copy"):
        verb = "moved" if kind == "move" else "copied"
        return f"{verb} {_where(str(op.get('from', '')))} to {where}"
    return f"{kind} {where}"


def ago(seconds: float) -> str:
    """How long ago, in words ("just now", "2 min ago", "3 h ago", "4 days ago")."""
    if seconds < 45:
        return "just now"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"{max(minutes, 1)} min ago"
    hours = round(seconds / 3600)
    if hours < 36:
        return f"{hours} h ago"
    days = round(seconds / 86400)
    return f"{days} days ago"


def _where(path: str) -> str:
    return "/".join(tokens(path)) or "the whole state"


def _key_or_path(path: str) -> str:
    parts = tokens(path)
    return f"key {parts[0]}" if len(parts) == 1 else _where(path)


def _value(path: str, value: Any) -> str:
    if any(is_sensitive(t) for t in tokens(path)):
        return REDACTED
    text = json.dumps(redact(value), ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"
