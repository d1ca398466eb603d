"""Connections of a per-user MCP server: one per user, opened with that user's credential.

A per-user :class:`core.tools.mcp.MCPTools` has no shared connection. Before a run
offers its tools, :meth:`UserConnections.aready` looks up the credential of the run's
user (``run_context.user_id``: the person who sent the message, or who created the
schedule) and makes sure that user's connection is open with it. A run without a user,
or whose user has not connected the server, raises MCPConnectionRequiredError, which
the agent answers with the ``/connect`` hint. Each call then goes through the
connection of the run's user, never another's.

The pool is bounded (``max_users``, least recently used closed first); a credential
that changed (reconnected) or disappeared (revoked) closes the old connection at the
user's next run.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from core.exceptions import MCPConnectionRequiredError
from core.tools.mcp.connection import MCPConnection, OpenTransport, ToolsListed

__all__ = ["CredentialSource", "UserConnections"]

#: users whose connections stay open at once, per server
MAX_USERS = 64


class CredentialSource(Protocol):
    """Where a user's credential for a server is found (``core.governance.credentials``)."""

    async def aget(self, user_id: str, server: str) -> dict[str, Any] | None:
        """The user's stored credential (``token``, ``method``, ...), or None."""
        ...


#: opens one user's connection with their stored credential
OpenFor = Callable[[str, dict[str, Any]], OpenTransport]


class UserConnections:
    """One supervised connection per user, opened with that user's own token."""

    __slots__ = (
        "_held",
        "_on_tools",
        "_open",
        "connect_timeout",
        "credentials",
        "max_users",
        "name",
    )

    def __init__(
        self,
        name: str,
        credentials: CredentialSource,
        open_for: OpenFor,
        on_tools: ToolsListed,
        *,
        connect_timeout: float,
        max_users: int = MAX_USERS,
    ) -> None:
        self.name = name
        #: connections kept open at once; the least recently used is closed beyond it
        self.max_users = max_users
        self.credentials = credentials
        self._open = open_for
        self._on_tools = on_tools
        self.connect_timeout = connect_timeout
        self._held: OrderedDict[str, tuple[str, MCPConnection]] = OrderedDict()

    async def aready(self, user_id: str | None) -> None:
        """Open ``user_id``'s connection with their credential, or say they must connect."""
        if not user_id:
            raise MCPConnectionRequiredError(self.name, "this run has no user to act as")
        value = await self.credentials.aget(user_id, self.name)
        token = str(value["token"]) if value else None
        # no await from here to the closes: the table changes in one step (no lock, so
        # a sync run bridged from another event loop may use it too)
        stale: list[MCPConnection] = []
        held = self._held.get(user_id)
        if held is not None and held[0] != token:  # reconnected or revoked
            stale.append(self._held.pop(user_id)[1])
            held = None
        connection: MCPConnection | None
        if token is None:
            connection = None
        elif held is None:
            assert value is not None
            connection = MCPConnection(
                self.name,
                self._open(user_id, value),
                self._on_tools,
                connect_timeout=self.connect_timeout,
            )
            self._held[user_id] = (token, connection)
            while len(self._held) > self.max_users:
                stale.append(self._held.popitem(last=False)[1][1])
        else:
            connection = held[1]
            self._held.move_to_end(user_id)
        for old in stale:
            await old.close()
        if connection is None:
            raise MCPConnectionRequiredError(self.name, "you have not connected it yet")
        await connection.start()  # the first attempt is awaited; a failure is the calls'

    async def aconnection(self, user_id: str | None) -> MCPConnection:
        """The connection of the call's user: the one :meth:`aready` opened before the
        run, else (a direct call, or closed as least recently used) opened now."""
        held = self._held.get(user_id or "")
        if held is None:
            await self.aready(user_id)
            held = self._held.get(user_id or "")
        if held is None:  # evicted again at once by other users' runs
            raise MCPConnectionRequiredError(self.name, "your connection could not be kept open")
        return held[1]

    @property
    def users(self) -> list[str]:
        """The users whose connections are held now, least recently used first."""
        return list(self._held)

    async def close(self) -> None:
        """Close every user's connection."""
        held, self._held = list(self._held.values()), OrderedDict()
        for _token, connection in held:
            await connection.close()
