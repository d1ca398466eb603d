"""A session data's encoded pieces, kept so a save appends instead of re-encoding.

A session's data text (:mod:`core.run.history`) is one JSON object; on a long-lived
session nearly all of it is runs and audit entries an earlier save already encoded.
Encoding them all again on every save cost a turn more than half a millisecond
(bench/README.md), so each run's JSON text and each audit entry's escaped text is
kept, by the identity of the (immutable) run record or entry string it was made from:
code that replaces a run or drops an entry just misses and that piece is encoded anew.

JSON escapes a string character by character, so the audit member (the entries joined
with a newline, as one JSON string) is the entries' escaped texts joined with ``\\n``:
byte for byte what encoding the joined string gives.

:class:`DataPieces` is what a finished run hands to the per-process cache
(:mod:`core.state.cache`): the text the pieces make and the pieces themselves, all
immutable, so the next run of the session starts from them without decoding the text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from json.encoder import encode_basestring
from typing import Generic, TypeVar

from core.db.data_parts import DataAppend, DataParts

__all__ = ["DataPieces", "PieceCache", "dumps", "escaped", "parts_of"]

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
    as a JSON object), each run with its JSON text, each audit entry with its escaped
    text; sizes in UTF-8 bytes."""

    text: str
    head: str
    runs: tuple[tuple[T, str, int], ...]
    audit: tuple[tuple[str, str, int], ...]
    #: bytes a store that appends (core.db.data_parts) has appended since it last wrote
    #: this data whole: what it holds besides the live data, about
    appended: int = 0

    @property
    def size(self) -> int:
        """Characters held, about (the pieces and the decoded records: twice the text)."""
        return 2 * len(self.text)


class PieceCache(Generic[T]):
    """Encoded texts of runs and audit entries, by the identity of what they encode.

    An entry holds its object, so the id it is filed under cannot be reused while it
    is here; :meth:`keep` drops everything no longer in the data after a save.
    """

    __slots__ = ("lines", "runs")

    def __init__(self) -> None:
        self.runs: dict[int, tuple[T, str, int]] = {}
        self.lines: dict[int, tuple[str, str, int]] = {}

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

    def line(self, line: str) -> tuple[str, str, int]:
        """An audit entry's text with its escaped form and that form's size."""
        hit = self.lines.get(id(line))
        if hit is not None and hit[0] is line:
            return hit
        text = escaped(line)
        piece = (line, text, len(text) if text.isascii() else len(text.encode()))
        self.lines[id(line)] = piece
        return piece

    def keep(self, runs: list[tuple[T, str, int]], lines: list[tuple[str, str, int]]) -> None:
        """Forget every piece but these (the data as just encoded)."""
        self.runs = {id(p[0]): p for p in runs}
        self.lines = {id(p[0]): p for p in lines}

    def fill(self, pieces: DataPieces[T]) -> None:
        """Know the pieces a data text was made of."""
        self.keep(list(pieces.runs), list(pieces.audit))


#: below this many appended bytes a data is never written whole again just to compact it
_MIN_APPENDED = 16_384


def parts_of(
    new: DataPieces[T] | None, base: DataPieces[T] | None
) -> tuple[DataParts | None, DataPieces[T] | None]:
    """The parts a save of ``new`` sends, appended to ``base`` (the pieces of the data
    stored at the version the save expects; None: not known) when ``new`` follows from
    it, and ``new`` with what its store will then hold appended.

    Written whole instead once the appended bytes would outweigh the live data, so a
    store that appends holds at most about twice the data (``core/db/redis/data_log.py``).
    None for both when ``new`` is (the text was not this data's encode).
    """
    if new is None:
        return None, None
    runs = tuple(p[1] for p in new.runs)
    audit = tuple(p[1] for p in new.audit)
    append = _append_of(new, base) if base is not None else None
    if append is not None and base is not None:
        grown = base.appended + len(new.head) * append.head_changed + 4
        grown += sum(p[2] + 2 for p in new.runs[len(new.runs) - append.new_runs :])
        grown += sum(p[2] + 2 for p in new.audit[len(new.audit) - append.new_audit :])
        if grown <= max(len(new.text), _MIN_APPENDED):
            return DataParts(new.head, runs, audit, append), replace(new, appended=grown)
    return DataParts(new.head, runs, audit), replace(new, appended=0) if new.appended else new


def _append_of(new: DataPieces[T], base: DataPieces[T]) -> DataAppend | None:
    """How ``new`` follows from ``base``: oldest runs and entries dropped, new ones
    added after the rest; None when a kept one changed."""
    runs = _kept(base.runs, new.runs)
    audit = _kept(base.audit, new.audit)
    if runs is None or audit is None:
        return None
    return DataAppend(
        drop_runs=len(base.runs) - runs,
        new_runs=len(new.runs) - runs,
        drop_audit=len(base.audit) - audit,
        new_audit=len(new.audit) - audit,
        head_changed=new.head != base.head,
    )


def _kept(
    old: Sequence[tuple[object, str, int]], new: Sequence[tuple[object, str, int]]
) -> int | None:
    """How many of ``old``'s last pieces start ``new``, unchanged (the rest of ``old``
    was dropped, the rest of ``new`` is added); None when that is not how it changed."""
    if not new or not old:
        return 0
    first = new[0][1]
    start = next((i for i, p in enumerate(old) if p[1] is first), None)
    if start is None:
        start = next((i for i, p in enumerate(old) if p[1] == first), len(old))
    kept = len(old) - start
    if kept > len(new):
        return None
    for (_, a, _), (_, b, _) in zip(old[start:], new, strict=False):
        if a is not b and a != b:
            return None
    return kept
