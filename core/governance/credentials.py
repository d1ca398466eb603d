"""People's own credentials for per-user MCP servers: stored sealed, one session each.

A user who connects a per-user server (``/connect github <token>`` in chat) gets one
small session in the store, ``mcp-credential:<server>:<user id>``, holding the
credential under the state key ``credential``. Keeping it a session, not a table of
its own, puts it under every rule the store already keeps:

* **sealed with the key ring**: the store's cipher (``STATEBOT_STATE_KEYS``,
  ``core/db/cipher.py``) seals it at rest, in Redis and in the durable store; a store
  without a cipher refuses to keep credentials (:class:`CredentialsUnavailableError`),
  never keeps them in the clear;
* **reached by rekey** (``core/governance/rekey.py`` rewrites every session);
* **deleted by erasure**: its last user and only participant is its owner, so
  ``erase_user`` deletes it like any session of theirs (hot, durable, history).

A new credential for the same server replaces the old one by deleting the session and
creating it again, so no stored version keeps a superseded token; a revoke deletes it.
Exports list connections by server and date, never the credential
(``core/governance/user_export.py``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from core.db.base import BaseDb
from core.db.records import SessionMeta, SessionRecord
from core.exceptions import CredentialsUnavailableError, SessionNotFoundError
from core.governance.save import check_user_id
from core.governance.sessions import delete_session

__all__ = [
    "CREDENTIAL_KIND",
    "Connection",
    "CredentialsUnavailableError",
    "McpCredentials",
    "connection_of",
    "credential_session_id",
    "is_credential_session",
]

#: the kind of a credential session (its meta); no agent owns it
CREDENTIAL_KIND = "credential"
_PREFIX = "mcp-credential:"
_KEY = "credential"


def credential_session_id(server: str, user_id: str) -> str:
    """The session that holds ``user_id``'s credential for ``server``."""
    if not server or ":" in server:
        raise ValueError(f"an MCP server name cannot be empty or hold ':' ({server!r})")
    return f"{_PREFIX}{server}:{user_id}"


def is_credential_session(session_id: str) -> bool:
    """Whether ``session_id`` holds a person's credential (kept out of exports' state)."""
    return session_id.startswith(_PREFIX)


def server_of(session_id: str) -> str:
    """The server a credential session is for."""
    return session_id[len(_PREFIX) :].split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class Connection:
    """One server a user connected: how and when (never the credential)."""

    server: str
    method: str
    connected_at: float


class McpCredentials:
    """Per-user credentials in one store; the store must seal state at rest."""

    __slots__ = ("db",)

    def __init__(self, db: BaseDb) -> None:
        self.db = db

    @property
    def sealed(self) -> bool:
        """Whether the store seals what it keeps (else nothing is stored here)."""
        return getattr(self.db, "cipher", None) is not None

    def _check(self) -> None:
        if not self.sealed:
            raise CredentialsUnavailableError(
                "per-user connections need encryption at rest: set STATEBOT_STATE_KEYS "
                "(the key ring) so credentials are never stored in the clear"
            )

    async def aconnect(
        self,
        user_id: str,
        server: str,
        token: str,
        *,
        method: str,
        extra: dict[str, Any] | None = None,
    ) -> Connection:
        """Store ``token`` as ``user_id``'s credential for ``server`` (replacing any);
        ``extra``: more fields kept with it (OAuth's refresh token and client)."""
        self._check()
        check_user_id(self.db, user_id)
        if not token.strip():
            raise ValueError("the credential is empty")
        session_id = credential_session_id(server, user_id)
        connection = Connection(server, method, time.time())
        value = {
            **(extra or {}),
            "token": token.strip(),
            "method": method,
            "connected_at": connection.connected_at,
        }
        async with self.db.session_lock(session_id) as lease:
            await self.db.adelete(session_id)  # no version keeps the old credential
            await self.db.asave(
                session_id,
                expected_version=0,
                changed={_KEY: json.dumps(value, separators=(",", ":"))},
                meta=SessionMeta(kind=CREDENTIAL_KIND, owner_id=f"mcp:{server}", user_id=user_id),
                lease=lease,
            )
        return connection

    async def atoken(self, user_id: str, server: str) -> str | None:
        """The user's credential for ``server``; None when they have not connected it."""
        value = await self.aget(user_id, server)
        return str(value["token"]) if value else None

    async def aget(self, user_id: str, server: str) -> dict[str, Any] | None:
        """Everything stored with the user's credential for ``server`` (None: none)."""
        if not self.sealed:
            return None
        return await self._value(credential_session_id(server, user_id))

    async def alist(self, user_id: str, servers: list[str]) -> list[Connection]:
        """The user's connections among ``servers``."""
        ids = [credential_session_id(s, user_id) for s in servers]
        records = await self.db.aload_many(ids)
        found = [connection_of(records[i]) for i in ids if i in records]
        return [c for c in found if c is not None]

    async def arevoke(self, user_id: str, server: str) -> bool:
        """Delete the user's credential for ``server`` (every stored copy); whether it existed."""
        try:
            await delete_session(self.db, credential_session_id(server, user_id))
        except SessionNotFoundError:
            return False
        return True

    async def _value(self, session_id: str) -> dict[str, Any] | None:
        record = await self.db.aload(session_id)
        value = record.state.get(_KEY) if record is not None else None
        return value if isinstance(value, dict) else None


def connection_of(record: SessionRecord) -> Connection | None:
    """The connection a credential session records (None: not one)."""
    value = record.state.get(_KEY)
    if not isinstance(value, dict):
        return None
    when = value.get("connected_at")
    return Connection(
        server_of(record.session_id),
        str(value.get("method") or ""),
        float(when) if isinstance(when, (int, float)) else 0.0,
    )
