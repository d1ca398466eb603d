"""What a console listing asks for and gets: the query, its rows, pages and cursors,
and the listing rules written in Python (what a store without its own query runs)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from core.db.records import SessionRecord

__all__ = [
    "HOT_SCAN",
    "Cursor",
    "SessionPage",
    "SessionQuery",
    "SessionRow",
    "Status",
    "filtered",
    "ordered",
]

#: sessions of Redis's hot index a search looks at (the most recently changed ones;
#: a dirty session is recent by nature, so its newer version is among them)
HOT_SCAN = 2_000

Status = Literal["clean", "dirty", "quarantined"]


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page starts: after this (updated_at, session_id)."""

    updated_at: float
    session_id: str

    def encode(self) -> str:
        """Opaque text for a URL."""
        return json.dumps([self.updated_at, self.session_id], separators=(",", ":"))

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """From :meth:`encode`; ValueError for anything else."""
        try:
            updated_at, session_id = json.loads(text)
        except (TypeError, ValueError):
            raise ValueError("not a page cursor") from None
        if not isinstance(updated_at, int | float) or not isinstance(session_id, str):
            raise ValueError("not a page cursor")
        return cls(float(updated_at), session_id)

    def before(self, updated_at: float, session_id: str) -> bool:
        """True when a row with these keys comes after the cursor in list order."""
        return (updated_at, session_id) < (self.updated_at, self.session_id)


@dataclass(frozen=True, slots=True)
class SessionQuery:
    """What to list. Every given condition must hold."""

    #: whole leading components of the session id (platform/workspace/channel, built
    #: by the caller): the id is this, or continues it after a ":" ("slack:T1:C1"
    #: matches "slack:T1:C1" and "slack:T1:C1:1700.1", never "slack:T1:C10")
    id_prefix: str = ""
    #: the viewer's scope: the session id starts with it too ("" sees everything)
    scope: str = ""
    #: the owning agent/team/workflow id
    agent: str | None = None
    #: a user key: the last user, or any user in the kept history
    user: str | None = None
    #: only sessions with this snapshot status
    status: Status | None = None


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session of a listing: meta, size and snapshot status, no state."""

    session_id: str
    version: int
    kind: str
    owner_id: str | None
    user_id: str | None
    updated_at: float
    #: characters of the stored state and data JSON
    size: int
    status: Status = "clean"


@dataclass(frozen=True, slots=True)
class SessionPage:
    """One page of a listing and the cursor of the next (None: this is the last)."""

    rows: list[SessionRow]
    next_cursor: Cursor | None


def ordered(rows: Iterable[SessionRow]) -> list[SessionRow]:
    """List order: most recently updated first, then session id descending."""
    return sorted(rows, key=lambda r: (r.updated_at, r.session_id), reverse=True)


def filtered(
    records: Iterable[SessionRecord], query: SessionQuery, after: Cursor | None
) -> list[SessionRow]:
    """Records matching ``query`` after ``after``, in list order (the SQL rules, in Python).

    The user condition sees only the last user here: other stores keep no user index.
    """
    rows: list[SessionRow] = []
    for record in records:
        sid = record.session_id
        if not (sid.startswith(query.scope) and _has_components(sid, query.id_prefix)):
            continue
        if query.agent is not None and record.owner_id != query.agent:
            continue
        if query.user is not None and record.user_id != query.user:
            continue
        if after is not None and not after.before(record.updated_at, sid):
            continue
        rows.append(_record_row(record))
    return ordered(rows)


def _has_components(session_id: str, id_prefix: str) -> bool:
    whole = id_prefix.removesuffix(":")
    return not whole or session_id == whole or session_id.startswith(whole + ":")


def _record_row(record: SessionRecord) -> SessionRow:
    state = json.dumps(record.state, ensure_ascii=False, separators=(",", ":"))
    return SessionRow(
        session_id=record.session_id,
        version=record.version,
        kind=record.kind,
        owner_id=record.owner_id,
        user_id=record.user_id,
        updated_at=record.updated_at,
        size=len(state) + len(record.data),
    )
