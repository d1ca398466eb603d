"""Between SessionRecords and Redis: script arguments out, hashes and undo records in."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from core.db import data_log
from core.db.cipher import StateCipher
from core.db.codec import entry_bytes
from core.db.records import HistoryEntry, SessionMeta, SessionRecord
from core.db.redis.keys import SessionKeys
from core.exceptions import StoreError


def record_from_hashes(
    session_id: str,
    state: dict[str, str],
    meta: dict[str, str],
    data: str = "",
    epoch: str = "",
    cipher: StateCipher | None = None,
) -> SessionRecord | None:
    """A record from the ``state`` and ``meta`` hashes; None when the session is absent.

    The hash fields are the key texts as saved: they become the record's texts as is;
    ``data`` is the ``:data`` string, read as a data log (``data_log.stored_data``,
    with ``cipher``). ``epoch``: the run id of the Redis that served them ("" when not
    known).
    """
    if not meta or "v" not in meta:
        return None
    if meta.get("id", session_id) != session_id:
        raise StoreError(f"session {session_id!r}: key hash collides with {meta.get('id')!r}")
    return SessionRecord(
        session_id=session_id,
        texts=state,
        version=int(meta["v"]),
        kind=meta.get("kind", "agent"),
        owner_id=meta.get("owner"),
        user_id=meta.get("user"),
        created_at=float(meta.get("created", 0.0)),
        updated_at=float(meta.get("updated", 0.0)),
        save_id=meta.get("save", ""),
        data=data_log.stored_data(data, session_id, cipher),
        epoch=epoch,
    )


def _plain(key: str, text: str) -> str:
    return text


def history_from_undo(
    session_id: str,
    state: dict[str, str],
    undo: list[str],
    open_text: Callable[[str, str], str] = _plain,
) -> list[HistoryEntry]:
    """Full states of recent versions, newest first, by undoing saves from the current one.

    Each undo record holds the version it produced and the previous JSON text of every
    key it touched (``false`` when the key did not exist before): texts as stored, so
    sealed ones are sealed there too; ``open_text(key, text)`` opens one for reading.
    """
    texts = dict(state)
    entries: list[HistoryEntry] = []
    for raw in undo:
        item: dict[str, Any] = json.loads(raw)
        entries.append(
            HistoryEntry(
                session_id=session_id,
                version=int(item["v"]),
                state={k: json.loads(open_text(k, t)) for k, t in texts.items()},
                user_id=item.get("u"),
                saved_at=float(item["t"]),
            )
        )
        old = item.get("o") or {}
        for key, previous in old.items():
            if previous is False:
                texts.pop(key, None)
            else:
                texts[key] = previous
    return entries


#: SAVE's has_data argument by (append, undoable)
_DATA_MODES = {(False, False): "1", (False, True): "2", (True, False): "3", (True, True): "4"}


def save_args(
    keys: SessionKeys,
    expected_version: int,
    texts: Mapping[str, str],
    removed: set[str],
    meta: SessionMeta,
    token: str,
    *,
    save_id: str,
    ttl_ms: int,
    history_limit: int,
    max_bytes: int,
    guard_dirty: bool,
    verify: bool,
    data: str | None = None,
    undoable: bool = False,
    append: bool = False,
) -> list[Any]:
    """ARGV of the SAVE script (layout documented there). ``undoable``: the save may be
    undone (write-through), so its undo record keeps the previous data (or, ``append``:
    ``data`` appends to the data log, its previous length)."""
    args: list[Any] = [
        expected_version,
        token,
        repr(time.time()),
        ttl_ms,
        history_limit,
        keys.hashed,
        keys.session_id,
        meta.kind,
        meta.owner_id or "",
        "1" if meta.owner_id is not None else "0",
        meta.user_id or "",
        "1" if meta.user_id is not None else "0",
        save_id,  # makes a retried save after a lost reply idempotent
        max_bytes,
        "1" if guard_dirty else "0",
        "1" if verify else "0",
        "0" if data is None else _DATA_MODES[append, undoable],
        data or "",
        len(texts),
    ]
    for key, text in texts.items():
        args += [key, text, entry_bytes(key, text) - len(text.encode())]
    for key in removed:
        args += [key, entry_bytes(key, "")]
    return args


def _record_head(keys: SessionKeys, record: SessionRecord, ttl_ms: int) -> list[Any]:
    """The ARGV both SEED and UPSERT start with: identity, meta, TTL, save id."""
    return [
        keys.hashed,
        record.session_id,
        record.version,
        record.kind,
        record.owner_id or "",
        record.user_id or "",
        repr(record.created_at),
        repr(record.updated_at),
        ttl_ms,
        record.save_id,
        record.data,
    ]


def seed_args(keys: SessionKeys, record: SessionRecord, ttl_ms: int, claimed: str) -> list[Any]:
    """ARGV of the SEED script: a durable record, claimed for incarnation ``claimed``,
    copied into Redis."""
    texts = record.texts
    args = [
        *_record_head(keys, record, ttl_ms),
        sum(entry_bytes(k, t) for k, t in texts.items()),
        claimed,
    ]
    for key, text in texts.items():
        args += [key, text]
    return args


def upsert_args(
    keys: SessionKeys,
    record: SessionRecord,
    texts: Mapping[str, str],
    *,
    ttl_ms: int,
    history_limit: int,
    guard_dirty: bool,
) -> list[Any]:
    """ARGV of the UPSERT script: a whole record, written if newer."""
    args = [
        *_record_head(keys, record, ttl_ms),
        history_limit,
        "1" if guard_dirty else "0",
        sum(entry_bytes(k, t) for k, t in texts.items()),
    ]
    for key, text in texts.items():
        args += [key, text]
    return args
