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
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Generic, TypeVar

__all__ = ["DataPieces", "PieceCache", "dumps", "escaped"]

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
