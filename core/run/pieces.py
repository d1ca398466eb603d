"""A session data's encoded pieces, kept so a save appends instead of re-encoding.

A session's data text (:mod:`core.run.history`) is one JSON object; on a long-lived
session nearly all of it is runs and audit entries an earlier save already encoded.
Encoding them all again on every save cost a turn more than half a millisecond
(bench/README.md), so each run's JSON text is kept by the identity of the (immutable)
run record it was made from (code that replaces a run just misses, and that run is
encoded anew), and the audit entries with their escaped texts and total size: a save
that only added entries escapes just those (:func:`bounded_audit`), and a save's
parts for a store that appends (:func:`parts_of`) are found by comparing tuples.

JSON escapes a string character by character, so the audit member (the entries joined
with a newline, as one JSON string) is the entries' escaped texts joined with ``\\n``:
byte for byte what encoding the joined string gives.

:class:`DataPieces` is what a finished run hands to the per-process cache
(:mod:`core.state.cache`): the text the pieces make and the pieces themselves, all
immutable, so the next run of the session starts from them without decoding the text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Generic, TypeVar

from core.db.data_parts import DataAppend, DataParts

__all__ = ["DataPieces", "PieceCache", "bounded_audit", "dumps", "escaped", "parts_of"]

T = TypeVar("T")


def dumps(value: object) -> str:
    """Compact JSON, non-ASCII kept: the form every piece of a data text is in."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def escaped(line: str) -> str:
    """``line`` as it appears inside a JSON string (without the quotes): what
    :func:`dumps` gives for a string, from the encoder's own function."""
    return encode_basestring(line)[1:-1]


@dataclass(frozen=True, slots=True)
class DataPieces(Generic[T]):
    """A data text and what it was made of: its head (every member but runs and audit,
    as a JSON object), each run with its JSON text and size, the audit entries with
    their escaped texts, and the audit member's size; sizes in UTF-8 bytes."""

    text: str
    head: str
    runs: tuple[tuple[T, str, int], ...]
    audit: tuple[str, ...] = ()
    escaped: tuple[str, ...] = ()
    #: the escaped entries' bytes, and two per entry (a separator, or the quotes)
    audit_bytes: int = 0
    #: bytes a store that appends (core.db.data_parts) has appended since it last wrote
    #: this data whole: what it holds besides the live data, about
    appended: int = 0

    @property
    def size(self) -> int:
        """Characters held, about (the pieces and the decoded records: twice the text)."""
        return 2 * len(self.text)


class PieceCache(Generic[T]):
    """Encoded texts of runs, by the identity of the record they encode.

    An entry holds its record, so the id it is filed under cannot be reused while it
    is here; :meth:`keep` drops every run no longer in the data after a save.
    """

    __slots__ = ("runs",)

    def __init__(self) -> None:
        self.runs: dict[int, tuple[T, str, int]] = {}

    def known(self, run: T) -> tuple[T, str, int] | None:
        """``run`` with its JSON text and size, if an encode made them."""
        hit = self.runs.get(id(run))
        return hit if hit is not None and hit[0] is run else None

    def run(self, run: T, encode: Callable[[T], str]) -> tuple[T, str, int]:
        """``run`` with its JSON text and size, encoded only if not known."""
        hit = self.known(run)
        if hit is not None:
            return hit
        text = encode(run)
        piece = (run, text, len(text.encode()))
        self.runs[id(run)] = piece
        return piece

    def keep(self, runs: list[tuple[T, str, int]]) -> None:
        """Forget every run but these (the data as just encoded)."""
        self.runs = {id(p[0]): p for p in runs}

    def fill(self, pieces: DataPieces[T]) -> None:
        """Know the runs a data text was made of."""
        self.keep(list(pieces.runs))


def _utf8(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode())


def bounded_audit(
    lines: list[str], previous: DataPieces[T] | None, max_entries: int, room: int
) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """The newest audit entries within ``max_entries`` and ``room`` bytes, their escaped
    texts and size. When ``lines`` start with the entries ``previous`` encoded (the usual
    save: entries were only added), only the added ones are escaped and measured."""
    if max_entries <= 0:
        return (), (), 0
    known = previous.audit if previous is not None else ()
    if known and len(lines) >= len(known) and tuple(lines[: len(known)]) == known:
        assert previous is not None
        fresh = tuple(lines[len(known) :])
        texts = previous.escaped + tuple(escaped(line) for line in fresh)
        entries = known + fresh
        size = previous.audit_bytes + sum(_utf8(t) + 2 for t in texts[len(known) :])
    else:
        entries = tuple(lines)
        texts = tuple(escaped(line) for line in entries)
        size = sum(_utf8(t) + 2 for t in texts)
    drop = max(0, len(entries) - max_entries)
    size -= sum(_utf8(t) + 2 for t in texts[:drop])
    while drop < len(entries) and size > room:  # rare: drop the oldest until it fits
        size -= _utf8(texts[drop]) + 2
        drop += 1
    return entries[drop:], texts[drop:], size


#: below this many appended bytes a data is never written whole again just to compact it
_MIN_APPENDED = 16_384


def parts_of(
    new: DataPieces[T] | None, base: DataPieces[T] | None
) -> tuple[DataParts | None, DataPieces[T] | None]:
    """The parts a save of ``new`` sends, appended to ``base`` (the pieces of the data
    stored at the version the save expects; None: not known) when ``new`` follows from
    it, and ``new`` with what its store will then hold appended.

    Written whole instead once the appended bytes would outweigh the live data, so a
    store that appends holds at most about twice the data (``core/db/data_log.py``).
    None for both when ``new`` is (the text was not this data's encode).
    """
    if new is None:
        return None, None
    runs = tuple(p[1] for p in new.runs)
    append = _append_of(new, runs, base) if base is not None else None
    if append is not None and base is not None:
        grown = base.appended + len(new.head) * append.head_changed + 4
        grown += sum(p[2] + 2 for p in new.runs[len(new.runs) - append.new_runs :])
        grown += sum(_utf8(t) + 2 for t in new.escaped[len(new.escaped) - append.new_audit :])
        if grown <= max(len(new.text), _MIN_APPENDED):
            return DataParts(new.head, runs, new.escaped, append), _with_appended(new, grown)
    whole = DataParts(new.head, runs, new.escaped)
    return whole, _with_appended(new, 0) if new.appended else new


def _with_appended(pieces: DataPieces[T], appended: int) -> DataPieces[T]:
    # built directly: dataclasses.replace introspects the fields on every call
    p = pieces
    return DataPieces(p.text, p.head, p.runs, p.audit, p.escaped, p.audit_bytes, appended)


def _append_of(
    new: DataPieces[T], runs: tuple[str, ...], base: DataPieces[T]
) -> DataAppend | None:
    """How ``new`` follows from ``base``: oldest runs and entries dropped, new ones
    added after the rest; None when a kept one changed."""
    old_runs = tuple(p[1] for p in base.runs)
    kept_runs = _kept(old_runs, runs)
    kept_audit = _kept(base.audit, new.audit)
    if kept_runs is None or kept_audit is None:
        return None
    return DataAppend(
        drop_runs=len(old_runs) - kept_runs,
        new_runs=len(runs) - kept_runs,
        drop_audit=len(base.audit) - kept_audit,
        new_audit=len(new.audit) - kept_audit,
        head_changed=new.head != base.head,
    )


def _kept(old: tuple[str, ...], new: tuple[str, ...]) -> int | None:
    """How many of ``old``'s last texts start ``new``, unchanged (the rest of ``old``
    was dropped, the rest of ``new`` is added); None when that is not how it changed."""
    if not new or not old:
        return 0
    try:
        start = old.index(new[0])
    except ValueError:
        return 0
    kept = len(old) - start
    if kept > len(new) or old[start:] != new[:kept]:
        return None
    return kept
