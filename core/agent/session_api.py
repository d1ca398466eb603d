"""Reading and changing stored session state outside a run (agents, teams, workflows)."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from core.db.base import BaseDb, SessionMeta
from core.state.merge import deep_merge
from core.state.session import open_session
from core.state.view import AgentState
from core.utils.sync import run_sync


class SessionStateApi:
    """``get_session_state`` / ``update_session_state`` / ``state`` for a session owner."""

    db: BaseDb
    id: str
    kind: str
    session_id: str
    session_state: dict[str, Any]

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
        """Apply ``change`` to a session's state under its lock and persist it."""
        async with open_session(
            self.db,
            session_id=session_id or self.session_id,
            user_id=None,
            run_id=uuid.uuid4().hex,
            meta=SessionMeta(kind=self.kind, owner_id=self.id),
            default=self.session_state,
        ) as handle:
            change(handle.state)
            await handle.persist()
            return copy.deepcopy(handle.tracker.public_state())

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
