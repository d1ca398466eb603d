"""The audit trail: one entry per saved version that changed the state, kept with the session.

An entry says who saved (user id; platform and message/event id from the run's
metadata, see :mod:`core.run.origin`), from which run, with which tools, what kind of
change it was (``run``, ``restore``, ``reset``, ``undo``, ``import``, ``migrate``), when,
and the change itself as an RFC 6902 patch from the previous version's state to this
one, plus the inverse patch (what undo applies); a ``migrate`` entry also names the
schema versions it went from and to (restore reads them). Entries live in the session's data
(:class:`core.run.history.SessionData`), so they are saved atomically with the state,
snapshotted, exported and deleted with the session; the list has its own bound
(``StateLimits.max_audit_entries`` / ``audit_bytes``), independent of the run history.

What a save costs. Only the top-level keys the save writes are looked at. A key added,
removed or replaced whole, and a list that only grew at its end, are told from the two
texts alone (:mod:`core.state.audit_texts`); for the rest the texts are decoded and
compared, and equal sub-values are skipped with ``==`` (C speed) before ``jsonpatch``
makes the ops for what differs, so toggling one task of a 1,000-task board diffs one
task, not the board. An entry larger than a quarter of the
audit share is kept without its patches (``omitted`` bytes, the keys it changed): the
trail then says who changed which keys, and undo refuses it.

One known gap, from comparing with Python's ``==``: a number that changed only in type
(``1`` -> ``1.0``, ``true`` -> ``1``) next to another change in the same top-level key
is not in the patch (the stored state is right; a key with no other change is recorded
as a whole-key replace).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jsonpatch
from jsonpointer import escape

from core.db import codec
from core.run.origin import EVENT_KEY, PLATFORM_KEY, origin_value
from core.state.audit_texts import NO_VALUE, text_ops

__all__ = [
    "KINDS",
    "AuditEntry",
    "build_entry",
    "diff",
    "diff_both",
    "diff_texts",
    "scrub_user",
]

#: the kinds of change an entry records
KINDS = ("run", "restore", "reset", "undo", "import", "migrate", "save")

Op = dict[str, Any]
_MISSING = object()


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One audited version of a session: who changed what, how, and when."""

    version: int
    at: float
    kind: str
    user_id: str | None = None
    platform: str | None = None
    event_id: str | None = None
    run_id: str | None = None
    tools: tuple[str, ...] = ()
    #: RFC 6902 ops from the previous version's state to this one (None: too large, omitted)
    patch: tuple[Op, ...] | None = ()
    #: RFC 6902 ops from this version's state back to the previous one (what undo applies)
    inverse: tuple[Op, ...] | None = ()
    #: top-level keys the change touched
    keys: tuple[str, ...] = ()
    #: bytes of the patches when they were too large to keep (0: kept)
    omitted: int = 0
    #: the version an undo reverted, or a restore brought back
    source_version: int | None = None
    #: this save created the session: the patches start from the owner's defaults
    #: (and the run's ``session_state`` argument), not from an empty state
    created: bool = False
    #: a ``migrate`` entry's schema versions: (from, to)
    schema_versions: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data, every field (machine output)."""
        return _entry_dict(self)

    def stored(self) -> dict[str, Any]:
        """Plain JSON data as stored in the session's data: fields with no value left
        out, ``keys`` only when the patches are omitted (else read from the patch)."""
        full = _entry_dict(self)
        out = {k: v for k, v in full.items() if v not in (None, [], 0, False)}
        out.update(version=self.version, at=self.at, kind=self.kind)
        out["patch"], out["inverse"] = full["patch"], full["inverse"]
        if self.patch is not None:
            out.pop("keys", None)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AuditEntry:
        """The entry from stored data (unknown fields ignored, missing ones defaulted)."""
        patch = data.get("patch")
        inverse = data.get("inverse")
        source = data.get("source_version")
        schemas = data.get("schema_versions")
        return cls(
            version=int(data.get("version", 0)),
            at=float(data.get("at", 0.0)),
            kind=str(data.get("kind", "run")),
            user_id=data.get("user_id"),
            platform=data.get("platform"),
            event_id=data.get("event_id"),
            run_id=data.get("run_id"),
            tools=tuple(str(t) for t in data.get("tools") or ()),
            patch=None if patch is None else tuple(patch),
            inverse=None if inverse is None else tuple(inverse),
            keys=tuple(str(k) for k in data.get("keys") or ())
            or tuple(sorted({_top_key(op) for op in patch or ()})),
            omitted=int(data.get("omitted", 0)),
            source_version=None if source is None else int(source),
            created=bool(data.get("created", False)),
            schema_versions=(int(schemas[0]), int(schemas[1])) if schemas else None,
        )


def _entry_dict(entry: AuditEntry) -> dict[str, Any]:
    out: dict[str, Any] = {
        "version": entry.version,
        "at": entry.at,
        "kind": entry.kind,
        "user_id": entry.user_id,
        "platform": entry.platform,
        "event_id": entry.event_id,
        "run_id": entry.run_id,
        "tools": list(entry.tools),
        "patch": None if entry.patch is None else list(entry.patch),
        "inverse": None if entry.inverse is None else list(entry.inverse),
        "keys": list(entry.keys),
    }
    if entry.omitted:
        out["omitted"] = entry.omitted
    if entry.source_version is not None:
        out["source_version"] = entry.source_version
    if entry.created:
        out["created"] = True
    if entry.schema_versions is not None:
        out["schema_versions"] = list(entry.schema_versions)
    return out


# -- diffs -----------------------------------------------------------------------------
def diff(old: Mapping[str, object], new: Mapping[str, object]) -> list[Op]:
    """RFC 6902 ops turning the JSON object ``old`` into ``new``."""
    return diff_both(old, new)[0]


def diff_both(old: Mapping[str, object], new: Mapping[str, object]) -> tuple[list[Op], list[Op]]:
    """(ops turning ``old`` into ``new``, ops turning ``new`` back into ``old``), found in
    one walk over the two values."""
    patch: list[Op] = []
    inverse: list[Op] = []
    _diff_into(patch, inverse, "", old, new)
    return patch, inverse


def diff_texts(
    old: Mapping[str, str | None],
    new: Mapping[str, str | None],
    new_values: Mapping[str, object] | None = None,
) -> tuple[list[Op], list[Op]]:
    """(patch, inverse) between two sets of top-level texts (None: key absent).

    Only the keys given are decoded; a key whose text changed but whose values compare
    equal in Python (``1`` vs ``1.0``, ``true`` vs ``1``) is replaced whole, so no
    change is ever recorded as none. ``new_values``: the values ``new`` encodes, when
    the caller holds them (a run's live state): they are not decoded again, and the
    patch gets copies of them, never the live objects.
    """
    told: tuple[list[Op], list[Op]] = ([], [])  # what the texts alone tell (audit_texts)
    before: dict[str, object] = {}
    after: dict[str, object] = {}
    for key in _union(old, new):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        live = new_values.get(key, NO_VALUE) if new_values is not None else NO_VALUE
        quick = text_ops(_pointer("", key), a, b, live)
        if quick is not None:
            told[0].extend(quick[0])
            told[1].extend(quick[1])
        elif a is not None and b is not None:  # changed inside: diff the two values
            before[key] = codec.decode_value(a)
            after[key] = live if live is not NO_VALUE else codec.decode_value(b)
    patch, inverse = diff_both(before, after)
    for key in before.keys() & after.keys():
        if not any(_top_key(op) == key for op in patch):
            path = _pointer("", key)
            patch.append({"op": "replace", "path": path, "value": after[key]})
            inverse.append({"op": "replace", "path": path, "value": before[key]})
    if new_values is not None and patch:  # the live values may change after this save: copy
        patch = codec.decode_value(codec.encode_value("patch", patch))
    return told[0] + patch, told[1] + inverse


def _diff_into(fwd: list[Op], inv: list[Op], prefix: str, a: object, b: object) -> None:
    """Append the ops for ``a`` -> ``b`` (and back) at JSON pointer ``prefix``.

    Equal parts are skipped with ``==``; the ops for what differs come from
    ``jsonpatch``. The changes found are in disjoint places (other keys, other list
    items, one middle slice per list), so each has its own inverse, in any order.
    """
    if isinstance(a, dict) and isinstance(b, dict):
        rest_a: dict[str, object] = {}
        rest_b: dict[str, object] = {}
        for key in _union(a, b):
            va, vb = a.get(key, _MISSING), b.get(key, _MISSING)
            if type(va) is type(vb) and va == vb:
                continue
            if isinstance(va, dict | list) and type(va) is type(vb):
                _diff_into(fwd, inv, _pointer(prefix, key), va, vb)
                continue
            if va is not _MISSING:
                rest_a[key] = va
            if vb is not _MISSING:
                rest_b[key] = vb
        if rest_a or rest_b:
            _extend(fwd, prefix, jsonpatch.make_patch(rest_a, rest_b).patch, 0)
            _extend(inv, prefix, jsonpatch.make_patch(rest_b, rest_a).patch, 0)
        return
    if isinstance(a, list) and isinstance(b, list):
        start, end_a, end_b = _trim(a, b)
        mid_a, mid_b = a[start:end_a], b[start:end_b]
        if len(mid_a) == len(mid_b) and all(
            isinstance(x, dict | list) and type(x) is type(y)
            for x, y in zip(mid_a, mid_b, strict=True)
        ):
            for offset, (x, y) in enumerate(zip(mid_a, mid_b, strict=True)):
                if not (type(x) is type(y) and x == y):
                    _diff_into(fwd, inv, f"{prefix}/{start + offset}", x, y)
            return
        _extend(fwd, prefix, jsonpatch.make_patch(mid_a, mid_b).patch, start)
        _extend(inv, prefix, jsonpatch.make_patch(mid_b, mid_a).patch, start)
        return
    if not (type(a) is type(b) and a == b):
        fwd.append({"op": "replace", "path": prefix, "value": b})
        inv.append({"op": "replace", "path": prefix, "value": a})


def _union(a: Mapping[str, object], b: Mapping[str, object]) -> list[str]:
    """The keys of both, in a stable order (``a``'s, then ``b``'s new ones): the same
    change always gives the same patch."""
    return [*a, *(k for k in b if k not in a)]


def _trim(a: list[object], b: list[object]) -> tuple[int, int, int]:
    """(start, end in a, end in b): the middle where the lists differ.

    Found by binary search over slice comparisons (C speed), not item by item.
    """
    low, high = 0, min(len(a), len(b))
    while low < high:  # the longest common prefix
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    start = low
    low, high = 0, min(len(a), len(b)) - start
    while low < high:  # the longest common suffix that does not overlap the prefix
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return start, len(a) - low, len(b) - low


def _extend(ops: list[Op], prefix: str, made: Iterable[Op], index_offset: int) -> None:
    """Ops jsonpatch made for a sub-value, re-rooted at ``prefix`` (list slices shifted)."""
    for op in made:
        op = dict(op)
        for field in ("path", "from"):
            if field in op:
                op[field] = prefix + _shift(op[field], index_offset)
        ops.append(op)


def _shift(path: str, offset: int) -> str:
    if not offset:
        return path
    head, _, rest = path[1:].partition("/")
    if not head.isdigit():  # jsonpatch names list items by index; anything else stays
        return path
    return f"/{int(head) + offset}" + (f"/{rest}" if rest else "")


def _pointer(prefix: str, key: str) -> str:
    return f"{prefix}/{escape(key)}"


def _top_key(op: Op) -> str:
    return unescape_token(op["path"][1:].split("/", 1)[0])


def unescape_token(token: str) -> str:
    """A JSON pointer token as the key it names."""
    return token.replace("~1", "/").replace("~0", "~")


def tokens(path: str) -> list[str]:
    """A JSON pointer's tokens (``""`` is the whole document: no tokens)."""
    return [unescape_token(t) for t in path.split("/")[1:]] if path else []


# -- building entries --------------------------------------------------------------------
def build_entry(
    *,
    version: int,
    kind: str,
    old: Mapping[str, str | None],
    new: Mapping[str, str | None],
    max_entry_bytes: int,
    new_values: Mapping[str, object] | None = None,
    user_id: str | None = None,
    origin: Mapping[str, Any] | None = None,
    run_id: str | None = None,
    tools: Sequence[str] = (),
    source_version: int | None = None,
    created: bool = False,
    at: float | None = None,
    schema_versions: tuple[int, int] | None = None,
) -> AuditEntry:
    """The entry of a save writing ``new`` over ``old`` (texts of the keys it touches)."""
    patch, inverse = diff_texts(old, new, new_values)
    keys = tuple(sorted({_top_key(op) for op in patch}))
    entry = AuditEntry(
        version=version,
        at=time.time() if at is None else at,
        kind=kind,
        user_id=user_id,
        platform=origin_value(origin, PLATFORM_KEY),
        event_id=origin_value(origin, EVENT_KEY),
        run_id=run_id,
        tools=tuple(tools),
        patch=tuple(patch),
        inverse=tuple(inverse),
        keys=keys,
        source_version=source_version,
        created=created,
        schema_versions=schema_versions,
    )
    size = _patch_bytes(patch) + _patch_bytes(inverse)
    if size > max_entry_bytes:  # who and which keys are still told; undo refuses it
        return AuditEntry(**{**_fields(entry), "patch": None, "inverse": None, "omitted": size})
    return entry


def _fields(entry: AuditEntry) -> dict[str, Any]:
    return {name: getattr(entry, name) for name in AuditEntry.__slots__}


def _patch_bytes(ops: list[Op]) -> int:
    try:
        return len(json.dumps(ops, ensure_ascii=False, separators=(",", ":")).encode())
    except (TypeError, ValueError):  # cannot happen for decoded JSON; be safe
        return 1 << 62


# -- erasure ---------------------------------------------------------------------------
def scrub_user(data_text: str, user_id: str, replacement: str) -> str:
    """A session's data text with ``user_id`` replaced in its audit entries (pure).

    For erasure in shared sessions: the entries stay (the state's history is still
    told) but no longer name the user. Only the ``user_id`` field is rewritten; the
    rest of the data (run history, name) is left as it is. ``""`` stays ``""``.
    """
    if not data_text:
        return data_text
    data = json.loads(data_text)
    stored = data.get("audit")
    if not isinstance(stored, str) or not stored:
        return data_text
    lines = stored.split("\n")
    changed = False
    for index, line in enumerate(lines):
        entry = json.loads(line)
        if isinstance(entry, dict) and entry.get("user_id") == user_id:
            entry["user_id"] = replacement
            lines[index] = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
            changed = True
    if not changed:
        return data_text
    data["audit"] = "\n".join(lines)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
