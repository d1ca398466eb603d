"""Session state outside a run (agents, teams, workflows): Agno's
``get_session_state`` / ``update_session_state``, each with an async twin, and the
seed-002 ``state`` view. The session objects' methods are in
:mod:`core.agent.sessions_api`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from core.agent.sessions_api import SessionApi
from core.state.merge import deep_merge
from core.state.schema_session import checked_checkpoint
from core.state.view import AgentState
from core.utils.sync import run_sync


class SessionStateApi(SessionApi):
    """``get_session_state`` / ``update_session_state`` / ``state`` for a session owner,
    with the session methods of :class:`~core.agent.sessions_api.SessionApi`."""

    async def aget_session_state(self, session_id: str | None = None) -> dict[str, Any]:
        """The stored state of a session (the default for a session not yet created)."""
        record = await self.db.aload(session_id or self.session_id)
        if record is None:
            return copy.deepcopy(self.session_state)
        return record.state

    def get_session_state(self, session_id: str | None = None) -> dict[str, Any]:
        """Sync twin of :meth:`aget_session_state`."""
        return run_sync(self.aget_session_state(session_id))

    async def amutate_session_state(
        self, change: Callable[[dict[str, Any]], None], session_id: str | None = None
    ) -> dict[str, Any]:
        """Apply ``change`` to a session's state under its lock and persist it.

        With a schema, a change that does not fit raises StateSchemaError and nothing
        is stored.
        """
        async with self._open_outside_run(session_id) as handle:
            change(handle.state)
            checked_checkpoint(handle)  # raises before the save: nothing is stored
            await handle.persist()
            return handle.final_state().decode()  # a fresh copy, from the saved texts

    async def aupdate_session_state(
        self, updates: Mapping[str, Any], session_id: str | None = None
    ) -> dict[str, Any]:
        """Deep-merge ``updates`` into the stored state; returns the new state."""

        def change(state: dict[str, Any]) -> None:
            merged = deep_merge(state, updates)
            state.clear()
            state.update(merged)

        return await self.amutate_session_state(change, session_id)

    def update_session_state(
        self, updates: Mapping[str, Any], session_id: str | None = None
    ) -> dict[str, Any]:
        """Sync twin of :meth:`aupdate_session_state`."""
        return run_sync(self.aupdate_session_state(updates, session_id))

    @property
    def state(self) -> AgentState:
        """The seed-002 view over this owner's default session, persisted on each change."""
        return AgentState(_StoredState(self))


class _StoredState:
    """An AgentState backend that reads and writes the owner's default session."""

    __slots__ = ("_owner",)

    def __init__(self, owner: SessionStateApi) -> None:
        self._owner = owner

    def read(self) -> Mapping[str, Any]:
        return self._owner.get_session_state()

    def mutate(self, change: Callable[[dict[str, Any]], None]) -> None:
        run_sync(self._owner.amutate_session_state(change))
