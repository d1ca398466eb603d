"""Undo a user's last change from the audit trail: a three-way merge of its inverse patch.

The rules (docs/audit.md):

* The change undone is the caller's newest ``run`` entry that changed the state and
  is not undone yet. Undo entries themselves are never undone (no redo): undoing
  again walks further back through the caller's own changes. Admin operations
  (restore, reset, import, migrate) are not undone this way; an admin restores.
* It is refused (:class:`UndoConflictError`) when a later change, by anyone, touched
  an overlapping path: the same value, a value inside it or around it, or a list
  whose items moved under it (an insert or removal at or before its index). A later
  change that was itself undone, and that undo, cancel out and are skipped.
* It is refused (:class:`UndoMigratedError`) when the state was migrated to a new
  schema version after the change: its patches are written against the old schema.
  An admin restores a version instead.
* As a last guard, the values the change wrote must still be there (RFC 6902
  ``test`` ops before the inverse), which also catches a save with no audit entry.
* Otherwise the inverse patch is applied to the current values of the top-level keys
  it touches; everything else, including later changes elsewhere, is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jsonpatch
import jsonpointer

from core.db import codec
from core.exceptions import NothingToUndoError, UndoConflictError
from core.state.audit import AuditEntry, Op, tokens, unescape_token

__all__ = ["apply_undo", "change_to_undo", "find_conflict", "migration_since"]

#: the index a list append ("-") stands for: after every other index
_END = 1 << 62


def change_to_undo(entries: Sequence[AuditEntry], user_id: str, session_id: str) -> AuditEntry:
    """The caller's newest change not undone yet; NothingToUndoError saying why not."""
    undone = {e.source_version for e in entries if e.kind == "undo"}
    mine = [e for e in entries if e.kind == "run" and e.user_id == user_id and e.keys]
    for entry in reversed(mine):
        if entry.version in undone:
            continue
        if entry.inverse is None:
            raise NothingToUndoError(
                session_id,
                f"your last change (v{entry.version}, {', '.join(entry.keys)}) was too large "
                f"to keep in the audit trail, so it cannot be undone; an admin can restore "
                f"v{entry.version - 1}",
            )
        return entry
    reason = (
        "your changes kept in the audit trail are all undone already"
        if mine
        else "the audit trail holds no change of yours to this session"
    )
    raise NothingToUndoError(session_id, reason)


def migration_since(entry: AuditEntry, entries: Sequence[AuditEntry]) -> AuditEntry | None:
    """The first ``migrate`` entry after ``entry``, if the state was migrated since."""
    return next((e for e in entries if e.kind == "migrate" and e.version > entry.version), None)


def find_conflict(
    entry: AuditEntry, entries: Sequence[AuditEntry]
) -> tuple[AuditEntry, str] | None:
    """The first later entry touching a path ``entry`` changed, with that path."""
    later = [e for e in entries if e.version > entry.version]
    cancelled = {e.source_version for e in later if e.kind == "undo"}
    undos = {e.version for e in later if e.kind == "undo" and e.source_version in cancelled}
    mine = [t for op in entry.patch or () for t in _touches(op)]
    for other in later:
        if other.version in cancelled or other.version in undos:
            continue
        if other.patch is None:  # too large to keep: it may have touched anything
            shared = set(other.keys) & set(entry.keys)
            if shared:
                return other, sorted(shared)[0]
            continue
        for op in other.patch:
            for theirs in _touches(op):
                if any(_overlap(m, theirs) for m in mine):
                    return other, "/".join(theirs[0])
    return None


def apply_undo(
    entry: AuditEntry, texts: Mapping[str, str], session_id: str
) -> dict[str, str | None]:
    """New texts (None: removed) of the keys ``entry``'s inverse touches, from ``texts``.

    UndoConflictError when the values ``entry`` wrote are no longer there.
    """
    inverse = list(entry.inverse or ())
    keys = {_top(op["path"]) for op in inverse} | {
        _top(op["from"]) for op in inverse if "from" in op
    }
    doc = {k: codec.decode_value(texts[k]) for k in keys if k in texts}
    checks: list[Op] = [
        {"op": "test", "path": op["path"], "value": op["value"]}
        for op in entry.patch or ()
        if op["op"] in ("add", "replace")
    ]
    try:
        result = jsonpatch.apply_patch(doc, [*checks, *inverse], in_place=True)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as exc:
        path = _failed_path(exc, checks, inverse)
        raise UndoConflictError(session_id, entry.version, path, None, None) from None
    return {k: codec.encode_value(k, result[k]) if k in result else None for k in keys}


def _failed_path(exc: Exception, checks: list[Op], inverse: list[Op]) -> str:
    """The path an application failed on, as best known (for the message)."""
    message = str(exc)
    for op in (*checks, *inverse):
        if op["path"] in message:
            return "/".join(tokens(op["path"]))
    first = (checks or inverse)[0]["path"] if checks or inverse else ""
    return "/".join(tokens(first))


# -- paths -----------------------------------------------------------------------------
Touch = tuple[list[str], bool]


def _touches(op: Mapping[str, Any]) -> list[Touch]:
    """Where an op acts: (tokens, whether it changes a list's length at that index)."""
    kind = op.get("op")
    out: list[Touch] = []
    if kind == "move":
        out.append(_shape_touch(str(op["from"])))
    if kind in ("add", "remove", "move", "copy"):
        out.append(_shape_touch(str(op["path"])))
    elif kind == "replace":
        out.append((tokens(str(op["path"])), False))
    return out


def _shape_touch(path: str) -> Touch:
    parts = tokens(path)
    return parts, bool(parts) and _is_index(parts[-1])


def _overlap(mine: Touch, theirs: Touch) -> bool:
    """Does a later op (``theirs``) touch what ``mine`` changed?

    One path inside the other (or equal): yes. Paths that part inside a list: only
    when the later op inserted or removed an item at or before ``mine``'s index
    (``mine``'s item moved, so its inverse would hit another item).
    """
    a, _ = mine
    b, b_shape = theirs
    for depth in range(min(len(a), len(b))):
        if a[depth] == b[depth]:
            continue
        if b_shape and len(b) == depth + 1:
            ia, ib = _index(a[depth]), _index(b[depth])
            return ia is not None and ib is not None and ib <= ia
        return False
    return True


def _is_index(token: str) -> bool:
    return token == "-" or token.isdigit()


def _index(token: str) -> int | None:
    if token == "-":
        return _END
    return int(token) if token.isdigit() else None


def _top(path: str) -> str:
    return unescape_token(path[1:].split("/", 1)[0])
