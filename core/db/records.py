"""The records that cross the storage seam: a session as stored, who saves it, its
stored versions, a run's lease and hold, user memories, snapshot status.

Plain frozen dataclasses (``Lease`` is the one mutable record: a save marks it
released or saved); the state travels as JSON text per top-level key, encoded and
decoded by :mod:`core.db.codec`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.db import codec

__all__ = [
    "HistoryEntry",
    "KnownVersion",
    "Lease",
    "OpenedRun",
    "QuarantineEntry",
    "SessionMeta",
    "SessionRecord",
    "SnapshotStatus",
    "UserMemory",
]


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A session as stored: its state as JSON text per top-level key, plus meta.

    Stores hand the texts through untouched (see ``core/db/codec.py``); ``state``
    decodes them, a fresh dict on every access, for code off the hot path.
    """

    session_id: str
    texts: Mapping[str, str]
    version: int
    kind: str = "agent"
    owner_id: str | None = None
    user_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    #: id of the save that produced this version: content identity ("" when unknown)
    save_id: str = ""
    #: the session's own data besides its state (run history, name): a JSON object as
    #: text, decoded only by the code that needs it ("" when there is none)
    data: str = ""
    #: the hot store's incarnation that served this record (Redis run id; "" for
    #: durable stores): a cached copy is only valid for the same epoch
    epoch: str = ""

    @property
    def state(self) -> dict[str, Any]:
        """The state decoded: a fresh dict on each access (admin, dumps, tests)."""
        return codec.decode_state(self.texts)

    @classmethod
    def from_state(
        cls, session_id: str, state: Mapping[str, Any], version: int, **meta: Any
    ) -> SessionRecord:
        """A record built from Python values (imports, tests); StateValueError names a
        value that is not JSON."""
        return cls(session_id, codec.encode_delta(state), version, **meta)


@dataclass(frozen=True, slots=True)
class QuarantineEntry:
    """A session the durable store kept refusing, and why (see core/db/snapshot.py)."""

    session_id: str
    version: int
    reason: str
    at: float


@dataclass(frozen=True, slots=True)
class SnapshotStatus:
    """How far a hot store's snapshots lag: sessions waiting, and sessions parked."""

    dirty: int
    quarantined: tuple[QuarantineEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class SessionMeta:
    """Who is saving: written alongside every save."""

    kind: str = "agent"
    owner_id: str | None = None
    user_id: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One saved version of a session (audit trail, restore)."""

    session_id: str
    version: int
    state: dict[str, Any]
    user_id: str | None
    saved_at: float


@dataclass(frozen=True, slots=True)
class UserMemory:
    """A fact remembered about a user, across all of their sessions."""

    memory_id: str
    user_id: str
    memory: str
    topics: tuple[str, ...] = ()
    created_at: float = field(default_factory=time.time)


@dataclass(slots=True)
class Lease:
    """Proof of holding a session's run lock; passed back on save for fencing.

    ``renew_until`` (a ``time.monotonic()`` instant, set by the run that holds the
    lease) is the run's deadline: a store that renews leases in the background stops
    there and lets the lease go, so a hung run cannot hold its session past it.
    """

    session_id: str
    token: str = ""
    renew_until: float | None = None
    #: set by a save with ``release=True``: the lease went back with that save
    released: bool = False
    #: set by every successful save under this lease: what the store now holds (so a
    #: per-process cache can ask "unchanged?" next time without a load)
    saved: KnownVersion | None = None
    #: the hot store's incarnation that granted it (RedisDb: the run id), "" if unknown:
    #: a lease lost with a Redis restart is reported as such, not as an expiry
    epoch: str = ""


@dataclass(frozen=True, slots=True)
class KnownVersion:
    """A session as a per-process cache last saw it: enough to ask "still the same?".

    ``epoch`` is the hot store's incarnation that served it (see ``SessionRecord``):
    a Redis that restarted may hold the same version with other content.
    """

    version: int
    save_id: str
    epoch: str = ""

    @classmethod
    def of(cls, record: SessionRecord) -> KnownVersion:
        """What a cache should remember of a record it keeps."""
        return cls(record.version, record.save_id, record.epoch)

    def matches(self, record: SessionRecord | None) -> bool:
        """True when ``record`` is exactly this version (a save id must be known)."""
        return (
            record is not None
            and bool(self.save_id)
            and (record.version, record.save_id, record.epoch)
            == (self.version, self.save_id, self.epoch)
        )


@dataclass(frozen=True, slots=True)
class OpenedRun:
    """A run's hold on a session: its lease, and the session as stored.

    ``unchanged``: the store holds exactly the ``known`` version, so ``record`` may be
    None (the store did not read the state); the caller's cached copy is current.
    Otherwise ``record`` is the stored session (None when there is none).
    """

    lease: Lease
    record: SessionRecord | None
    unchanged: bool = False
