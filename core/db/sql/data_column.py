"""A SQL store's session data: the ``data`` column, and ``data_tail`` that saves append to.

On PostgreSQL without state keys, a save whose data follows from the stored data by
appended parts (``DataParts.append``: this process saved it last) writes ``data_tail =
data_tail || lines``: the lines of ``core/db/data_log.py``, a few KB, instead of the
whole data (~60 KB on a long-lived session); PostgreSQL keeps the unchanged TOASTed
``data`` value by reference when it updates the row. Any other save writes ``data``
whole (a log when it has parts, else the text) and empties the tail; so does every
snapshot, import and rekey. SQLite, and PostgreSQL with state keys, always write the
data whole (measured, :func:`data_write`). Readers see ``data`` followed by
``data_tail`` read as a log (:func:`stored_text`); a log sealed line by line (only rekey
of a plaintext log writes one) is read as well.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.db import data_log
from core.db.cipher import StateCipher
from core.db.data_parts import DataParts

if TYPE_CHECKING:
    from core.db.sql.store import SqlDb

__all__ = ["DataWrite", "data_write", "stored_text"]


@dataclass(frozen=True, slots=True)
class DataWrite:
    """What a save writes of a session's data: lines to append, or the data whole."""

    #: the lines to append to the stored log (each starting with its newline), when
    #: the save's parts follow from it; None: written whole
    tail: str | None
    #: the data written whole: when there is no tail, or the stored data is no log
    whole: Callable[[], str]


def data_write(db: SqlDb, session_id: str, data: str, parts: DataParts | None) -> DataWrite:
    """The write of ``data`` (plaintext) on ``db``: its parts as log lines on
    PostgreSQL without state keys; else the text, sealed whole with the store's cipher.

    Measured (bench/README.md, "Append-only data in PostgreSQL"): SQLite rewrites a row
    whole on any update, so appending cost it more than writing the data whole; and a
    SQL store reads the whole row on every turn, so a sealed log would be opened line by
    line on each load (~0.4 ms for a long-lived session's 220 lines, against ~0.15 ms for
    the data sealed whole), more than appending saves.
    """
    cipher = db.cipher
    if parts is None or cipher is not None or db._writer.dialect.name != "postgresql":
        text = data if cipher is None else cipher.seal_data(session_id, data)
        return DataWrite(None, lambda: text)
    tail = data_log.appended(parts) if parts.append is not None else None
    return DataWrite(tail, functools.partial(data_log.whole, parts))


def stored_text(session_id: str, data: str, tail: str, cipher: StateCipher | None) -> str:
    """The data text of a row (sealed whole when its log held sealed lines, as a whole
    write seals it): a log read back, anything else as it is.

    StateDecryptError for sealed lines without a cipher; DamagedDataError for a line
    of no known kind.
    """
    raw = data + tail if tail else data
    return data_log.stored_data(raw, session_id, cipher)
