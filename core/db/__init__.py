"""Storage only: the records, the store interface, and one module per backend.

The backends keep Agno's paths and load only when named: ``core.db.in_memory``,
``core.db.sqlite``, ``core.db.postgres``, ``core.db.redis``. This face holds what
every backend shares: the records a store hands back (``core.db.records``), the
interface (``BaseDb``) and the protocols the other layers ask for
(``core.db.protocols``). Nothing here imports a layer above storage (the contract is
in ``pyproject.toml``); errors live in ``core.exceptions``.
"""

from __future__ import annotations

from core.db.base import BaseDb
from core.db.protocols import HotStore, MemoryStore, SessionStore
from core.db.records import (
    HistoryEntry,
    KnownVersion,
    Lease,
    OpenedRun,
    SessionMeta,
    SessionRecord,
    SnapshotStatus,
    UserMemory,
)
from core.db.session_types import SessionType

__all__ = [
    "BaseDb",
    "HistoryEntry",
    "HotStore",
    "KnownVersion",
    "Lease",
    "MemoryStore",
    "OpenedRun",
    "SessionMeta",
    "SessionRecord",
    "SessionStore",
    "SessionType",
    "SnapshotStatus",
    "UserMemory",
]
