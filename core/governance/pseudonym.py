"""Pure helpers of erasure: find a user's id in stored JSON and replace it by a pseudonym.

The rule, decided here once (docs/erasure.md): a user id is rewritten where it occurs
*exactly*, as a whole JSON string or a whole object key, at any depth of a state value,
a session's data or a history version. A string that merely contains the id (free
text, or another user's id that starts the same: ``slack:T1:U1`` in ``slack:T1:U12``)
is left alone, so erasing one user never corrupts another's id.

A session's data (run history, name, audit entries, ...) loses the user's own runs
outright; everything else in it (other users' runs, entries naming the user) keeps
its shape with the id replaced: audit entries by ``core.state.audit.scrub_user``, then
the exact-id rule everywhere (it also reaches the patch values naming the user).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from core.db.codec import decode_value, encode_value
from core.db.maintenance import UserRewrite
from core.db.records import HistoryEntry, SessionRecord
from core.run.history import audit_lines
from core.state import audit

_T = TypeVar("_T")

__all__ = [
    "audit_entries",
    "mentions_text",
    "new_pseudonym",
    "replace_user",
    "run_users",
    "scrub_data",
    "scrub_texts",
    "summary_names",
    "user_rewrite",
    "user_runs",
]

_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def new_pseudonym() -> str:
    """A fresh stand-in for an erased user: random, so it cannot be traced back."""
    return f"erased-user-{uuid.uuid4().hex[:12]}"


def needles(user_id: str) -> tuple[str, ...]:
    """The forms a user id takes inside stored JSON text (raw, and JSON-escaped)."""
    escaped = json.dumps(user_id, ensure_ascii=False)[1:-1]
    return (user_id,) if escaped == user_id else (user_id, escaped)


def mentions_text(text: str, user_id: str) -> bool:
    """True when stored text *may* name the user (a substring test: a cheap prefilter)."""
    return any(n in text for n in needles(user_id))


def replace_user(value: Any, user_id: str, pseudonym: str) -> tuple[Any, bool]:
    """``value`` with every exact occurrence of ``user_id`` (string or key) replaced;
    and whether anything was. The input is never mutated."""
    if isinstance(value, str):
        return (pseudonym, True) if value == user_id else (value, False)
    if isinstance(value, list):
        items = [replace_user(v, user_id, pseudonym) for v in value]
        if any(changed for _, changed in items):
            return [v for v, _ in items], True
        return value, False
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        changed = False
        for key, item in value.items():
            new_item, item_changed = replace_user(item, user_id, pseudonym)
            new_key = pseudonym if key == user_id else key
            changed = changed or item_changed or new_key != key
            out[new_key] = new_item
        return (out, True) if changed else (value, False)
    return value, False


def scrub_texts(
    texts: Mapping[str, str], user_id: str, pseudonym: str
) -> tuple[dict[str, str], set[str]]:
    """A state delta pseudonymising ``user_id``: (changed key texts, removed keys).

    A top-level key that is the user id itself is renamed (removed, and written under
    the pseudonym).
    """
    changed: dict[str, str] = {}
    removed: set[str] = set()
    for key, text in texts.items():
        if not mentions_text(text, user_id) and key != user_id:
            continue
        value, value_changed = replace_user(decode_value(text), user_id, pseudonym)
        if key == user_id:
            removed.add(key)
            changed[pseudonym] = encode_value(pseudonym, value)
        elif value_changed:
            changed[key] = encode_value(key, value)
    return changed, removed


def _decode_data(text: str) -> dict[str, Any]:
    if not text:
        return {}
    data = json.loads(text)
    return data if isinstance(data, dict) else {}


def scrub_data(text: str, user_id: str, pseudonym: str) -> str:
    """A session's data without the user's runs, the id replaced everywhere else."""
    if not text or not mentions_text(text, user_id):
        return text
    # the audit trail's own rule for its entries first; the exact-id rule then reaches
    # what it leaves (patch values naming the user, other fields)
    data = _decode_data(audit.scrub_user(text, user_id, pseudonym))
    runs = data.get("runs")
    if isinstance(runs, list):
        data["runs"] = [
            r for r in runs if not (isinstance(r, dict) and r.get("user_id") == user_id)
        ]
    if summary_names(data, user_id):  # free text the model wrote from their words
        del data["summary"]
    stored_audit = data.pop("audit", None)
    scrubbed, _ = replace_user(data, user_id, pseudonym)
    if stored_audit is not None:
        scrubbed["audit"] = _scrub_audit(stored_audit, user_id, pseudonym)
    return str(_JSON.encode(scrubbed))


def summary_names(data: Mapping[str, Any], user_id: str) -> bool:
    """True when the session's summary was made from the user's runs or names them in
    any form: its text cannot be pseudonymised reliably, so erasure drops it."""
    summary = data.get("summary")
    if not isinstance(summary, dict):
        return False
    return user_id in (summary.get("users") or ()) or mentions_text(_JSON.encode(summary), user_id)


def _scrub_audit(stored: str | Iterable[object], user_id: str, pseudonym: str) -> str | list[Any]:
    """The audit trail in its stored form (JSON Lines in one string, or a list), every
    entry under the exact-id rule (its patches name the user too)."""
    entries = [json.loads(line) for line in audit_lines(stored)]
    scrubbed = [replace_user(e, user_id, pseudonym)[0] for e in entries]
    if isinstance(stored, str):
        return "\n".join(_JSON.encode(e) for e in scrubbed)
    return scrubbed


def audit_entries(text: str) -> list[Any]:
    """A session's audit entries, decoded, from its data text (oldest first)."""
    return [json.loads(line) for line in audit_lines(_decode_data(text).get("audit"))]


def run_users(text: str) -> set[str]:
    """Users who ran in a session, from its data: its runs (those without a user left
    out) and the runs its summary was made from (they may have left the history)."""
    data = _decode_data(text)
    runs = data.get("runs")
    summary = data.get("summary")
    users = {str(u) for u in summary.get("users") or ()} if isinstance(summary, dict) else set()
    if not isinstance(runs, list):
        return users
    return users | {
        r["user_id"] for r in runs if isinstance(r, dict) and isinstance(r.get("user_id"), str)
    }


def user_runs(text: str, user_id: str) -> list[dict[str, Any]]:
    """The user's own runs in a session's data, as stored (export)."""
    runs = _decode_data(text).get("runs")
    if not isinstance(runs, list):
        return []
    return [r for r in runs if isinstance(r, dict) and r.get("user_id") == user_id]


def entries_naming(items: Iterable[_T], user_id: str) -> list[_T]:
    """The items (audit entries, ...) in which the user id occurs exactly."""
    return [item for item in items if replace_user(item, user_id, "")[1]]


def names_user(record: SessionRecord, history: list[HistoryEntry], user_id: str) -> bool:
    """True when the session names the user exactly: as its last user, a participant
    (runs, stored versions), in its texts and data, or in a stored version's state."""
    if record.user_id == user_id or user_id in participants(record, history):
        return True
    if any(mentions_text(t, user_id) for t in (*record.texts.values(), record.data)):
        return True
    return any(replace_user(e.state, user_id, "")[1] for e in history)


def participants(record: SessionRecord | None, history: list[HistoryEntry]) -> set[str]:
    """Everyone seen acting in a session: its last user, its runs, its stored versions."""
    users = {e.user_id for e in history if e.user_id}
    if record is not None:
        users |= run_users(record.data)
        if record.user_id:
            users.add(record.user_id)
    return users


def user_rewrite(user_id: str, pseudonym: str) -> UserRewrite:
    """The rule of this module as stores apply it (core/db/maintenance.py)."""
    return UserRewrite(
        user_id=user_id,
        pseudonym=pseudonym,
        needles=needles(user_id),
        texts=lambda texts: scrub_texts(texts, user_id, pseudonym),
        data=lambda text: scrub_data(text, user_id, pseudonym),
        value=lambda value: replace_user(value, user_id, pseudonym),
        names=lambda record, history: names_user(record, history, user_id),
    )
