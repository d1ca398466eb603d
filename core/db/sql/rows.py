"""Rows of a SQL store read back as records: sealed values opened with the store's
cipher, and, without one, a sealed value refused rather than served as text."""

from __future__ import annotations

import json
from typing import Any

from core.db import codec
from core.db.cipher import MARKER, StateCipher, refuse_sealed
from core.db.records import HistoryEntry, SessionRecord, UserMemory
from core.db.sql.data_column import stored_text

__all__ = ["read_history", "read_memory", "read_record"]


def read_record(row: Any, cipher: StateCipher | None) -> SessionRecord:
    """A sessions-table row as a record (plaintext texts and data; the data column and
    the lines appended to it read as one text, core/db/sql/data_column.py)."""
    record = _record(row, stored_text(row.session_id, row.data, row.data_tail, cipher))
    if cipher is not None:
        return cipher.opened_record(record)
    if MARKER in row.state or record.data.startswith(MARKER):  # one C scan: rarely true
        refuse_sealed(record.session_id, record.texts, record.data)
    return record


def read_history(row: Any, cipher: StateCipher | None) -> HistoryEntry:
    """A history row as a stored version (its state decoded)."""
    if cipher is None:
        if MARKER in row.state:
            refuse_sealed(row.session_id, codec.split_object(row.state))
        return _history_entry(row)
    texts = cipher.open_texts(row.session_id, codec.split_object(row.state))
    state = codec.decode_state(texts)
    return HistoryEntry(row.session_id, row.version, state, row.user_id, row.saved_at)


def _record(row: Any, data: str) -> SessionRecord:
    return SessionRecord(
        session_id=row.session_id,
        texts=codec.split_object(row.state),
        version=row.version,
        kind=row.kind,
        owner_id=row.owner_id,
        user_id=row.user_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        save_id=row.save_id,
        data=data,
    )


def _history_entry(row: Any) -> HistoryEntry:
    state = codec.decode_value(row.state)
    return HistoryEntry(row.session_id, row.version, state, row.user_id, row.saved_at)


def read_memory(row: Any) -> UserMemory:
    """A memories-table row as a user memory."""
    return UserMemory(
        memory_id=row.memory_id,
        user_id=row.user_id,
        memory=row.memory,
        topics=tuple(json.loads(row.topics)),
        created_at=row.created_at,
    )
