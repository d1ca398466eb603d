"""Agno's ``SessionType`` and the seam through which a store reads and writes whole
session objects (``db.get_session`` / ``db.upsert_session``).

Storage knows records, not session objects: ``AgentSession`` and its kin hold run
outputs and live in :mod:`core.session`, above this package. That package registers
its reader and writer here when it is imported (every program that names a session
class, or builds an Agent, Team or Workflow, has imported it), so the store offers
Agno's methods without importing anything above it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from core.exceptions import StoreError

if TYPE_CHECKING:
    from core.db.base import BaseDb

__all__ = ["SessionObjects", "SessionType", "register_session_objects", "session_objects"]


class SessionType(StrEnum):
    """Which kind of owner a session belongs to (Agno's names and values)."""

    AGENT = "agent"
    TEAM = "team"
    WORKFLOW = "workflow"


class SessionObjects(Protocol):
    """Reads and writes whole session objects on a store (core.session provides it)."""

    async def read(
        self,
        db: BaseDb,
        session_id: str,
        session_type: SessionType,
        user_id: str | None,
        deserialize: bool,
    ) -> Any:
        """The session as an object (or a dict), None when there is none of that type."""

    async def upsert(self, db: BaseDb, session: Any, deserialize: bool) -> Any:
        """Save a whole session object under its lease, audited; the session as stored."""


_registered: list[SessionObjects] = []


def register_session_objects(objects: SessionObjects) -> None:
    """Make ``objects`` the reader and writer of every store's session objects."""
    _registered[:] = [objects]


def session_objects() -> SessionObjects:
    """The registered reader and writer; a clear error when core.session is not loaded."""
    if not _registered:
        raise StoreError(
            "session objects are defined in core.session: import it (or core.agent) "
            "before calling db.get_session or db.upsert_session"
        )
    return _registered[0]
