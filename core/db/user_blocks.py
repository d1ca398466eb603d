"""A user's runs blocked while their data is erased: the marker every run checks.

An erasure (``core.governance.erasure``) holds a *marker lease* for the user for its
whole duration; every run of that user checks the marker right after it takes its own
session lease (``core.state.session``) and is refused while it is held. The marker is
an ordinary run lease under a reserved name, held by the store's own lease machinery,
so it is shared by every process the store reaches (Redis, or the SQL ``leases``
table), renewed while the erasure runs, and it **expires by itself** ``lock_ttl``
seconds after an erasing process dies: the block is never permanent. Two erasures of
one user queue on it like runs of one session.

The name holds a SHA-256 of the user id, never the id, so no key or row the marker
writes names the user (erasure's own scans look for the id).
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Protocol

from core.db.records import Lease

__all__ = ["MARKER_PREFIX", "LeaseView", "UserBlocks", "is_marker", "marker_id"]

#: session ids starting with this are erasure markers, never sessions
MARKER_PREFIX = "statebot-erasing:"


def marker_id(user_id: str) -> str:
    """The lease name of the marker that blocks ``user_id``'s runs."""
    digest = hashlib.sha256(user_id.encode("utf-8", "surrogatepass")).hexdigest()
    return MARKER_PREFIX + digest


def is_marker(name: str) -> bool:
    """Whether a held lease is an erasure marker rather than a run."""
    return name.startswith(MARKER_PREFIX)


class LeaseView(Protocol):
    """What a store's leases tell without taking one."""

    async def held(self, session_id: str) -> bool:
        """Whether the lease of ``session_id`` is held now."""

    async def held_all(self) -> dict[str, str]:
        """Every lease held now: a name of the lease -> its holder's token."""


class UserBlocks(Protocol):
    """Markers kept apart from the run leases (RedisDb: read by its OPEN script)."""

    def hold(self, marker: str) -> contextlib.AbstractAsyncContextManager[Lease]:
        """Hold ``marker`` for the block, renewed until it ends."""

    async def held(self, marker: str) -> bool:
        """Whether ``marker`` holds now."""
