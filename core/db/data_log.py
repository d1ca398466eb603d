"""How the stores keep a session's data: a log of lines a save appends to.

A session's data (``core/db/data_parts.py``) is mostly runs and audit entries an
earlier save already wrote. Sending the whole text with every save cost a long-lived
session's turn its size again (about 60 KB), so RedisDb's ``:data`` string and the SQL
stores' ``data`` column followed by ``data_tail`` hold lines, one part each, and a save
that only adds and drops parts appends a few lines::

    H<head>        the head (name, summary, ...): replaces the one before
    R<run>         a run's JSON text, added after the others
    A<entry>       an audit entry's text (escaped, as inside the data's JSON string)
    r<n>           the n oldest runs dropped
    a<n>           the n oldest audit entries dropped

The first line is always a head: a whole write starts the log anew. A payload is
either plaintext or sealed on its own (``core/db/cipher.py``; a JSON text never holds a
raw newline, nor does a sealed one), so compacting a log or finding its live lines
never needs a key. Dropped lines stay until the log is written whole again, which a
save does once what it appended would outweigh the live data
(``core.run.pieces.parts_of``), and erasure does when a dropped line names the user.

Data written before the log (one JSON text, plain or sealed whole) is read as it is; a
save never appends to it (RedisDb's SAVE script refuses, a SQL save sees it in its
transaction, and the save writes the log whole).
"""

from __future__ import annotations

from collections.abc import Callable

from core.db.cipher import MARKER, StateCipher, refuse_sealed
from core.db.data_parts import DataParts, assemble
from core.exceptions import DamagedDataError

__all__ = ["appended", "compacted", "is_log", "read", "renewed", "stored_data", "whole"]

HEAD, RUN, AUDIT, DROP_RUNS, DROP_AUDIT = "H", "R", "A", "r", "a"

Seal = Callable[[str], str]


def is_log(raw: str) -> bool:
    """True when ``raw`` is a data log (not a whole JSON text, nor empty)."""
    return raw[:1] == HEAD


def whole(parts: DataParts, seal: Seal | None = None) -> str:
    """The log of ``parts`` written anew."""
    wrap = seal or _same
    lines = [HEAD + wrap(parts.head)]
    lines += [RUN + wrap(r) for r in parts.runs]
    lines += [AUDIT + wrap(a) for a in parts.audit]
    return "\n".join(lines)


def appended(parts: DataParts, seal: Seal | None = None) -> str:
    """What to append to the log of the stored data so that it reads as ``parts``
    (``parts.append`` says how they follow from it); starts with its newline."""
    change = parts.append
    assert change is not None
    wrap = seal or _same
    lines: list[str] = []
    if change.head_changed:
        lines.append(HEAD + wrap(parts.head))
    if change.drop_runs:
        lines.append(f"{DROP_RUNS}{change.drop_runs}")
    if change.new_runs:
        lines += [RUN + wrap(r) for r in parts.runs[-change.new_runs :]]
    if change.drop_audit:
        lines.append(f"{DROP_AUDIT}{change.drop_audit}")
    if change.new_audit:
        lines += [AUDIT + wrap(a) for a in parts.audit[-change.new_audit :]]
    return "".join("\n" + line for line in lines)


def _same(text: str) -> str:
    return text


def live_lines(raw: str, session_id: str) -> tuple[str, list[str], list[str]]:
    """The head line, run lines and audit lines a log reads as, payloads as stored.

    DamagedDataError for a line that is none of the five kinds (only a hand-edited or
    corrupted key holds one: the store's own writes never do).
    """
    head = ""
    runs: list[str] = []
    audit: list[str] = []
    for line in raw.split("\n"):
        tag = line[:1]
        if tag == RUN:
            runs.append(line)
        elif tag == AUDIT:
            audit.append(line)
        elif tag == HEAD:
            head = line
        elif tag in (DROP_RUNS, DROP_AUDIT) and line[1:].isdigit():
            del (runs if tag == DROP_RUNS else audit)[: int(line[1:])]
        else:
            raise DamagedDataError(session_id, f"not a data log line: {line[:20]!r}")
    return head, runs, audit


def compacted(raw: str, session_id: str) -> str:
    """The log written anew from its live lines (no key needed: payloads as they are)."""
    head, runs, audit = live_lines(raw, session_id)
    return "\n".join([head, *runs, *audit])


def read(raw: str, open_payload: Callable[[str], str], session_id: str) -> str:
    """The data text a log reads as; ``open_payload`` opens a sealed payload."""
    head, runs, audit = live_lines(raw, session_id)
    return assemble(
        open_payload(head[1:]),
        [open_payload(line[1:]) for line in runs],
        [open_payload(line[1:]) for line in audit],
    )


def stored_data(raw: str, session_id: str, cipher: StateCipher | None) -> str:
    """Stored data (Redis's ``:data``, a SQL row's ``data`` and ``data_tail``) as the
    data text the rest of the store knows: a log read, and sealed whole when it held
    sealed lines; anything else as it is.

    StateDecryptError when a line is sealed and there is no cipher to open it;
    DamagedDataError when a line is none of a log's kinds.
    """
    if not is_log(raw):
        return raw
    sealed = False

    def open_payload(payload: str) -> str:
        nonlocal sealed
        if not payload.startswith(MARKER):
            return payload
        sealed = True
        if cipher is None:
            refuse_sealed(session_id, {}, payload)  # raises: names the key
        assert cipher is not None
        return cipher.open(payload, session_id, None)

    text = read(raw, open_payload, session_id)
    return cipher.seal_data(session_id, text) if sealed and cipher is not None else text


def renewed(raw: str, session_id: str, cipher: StateCipher) -> str | None:
    """Stored data (a log or a whole text) with everything not sealed under the newest
    key sealed again (rekey; a log comes back compacted); None when all of it already is."""
    if not is_log(raw):
        return cipher.renewed(raw, session_id, None) if raw else None
    head, runs, audit = live_lines(raw, session_id)
    changed = False
    lines = []
    for line in [head, *runs, *audit]:
        new = cipher.renewed(line[1:], session_id, None)
        changed = changed or new is not None
        lines.append(line if new is None else line[0] + new)
    return "\n".join(lines) if changed else None
