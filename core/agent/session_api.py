"""Sessions outside a run (agents, teams, workflows): state, history, name, delete.

The names follow Agno's: ``get_session``, ``get_chat_history``,
``get_session_messages``, ``get_last_run_output``, ``get_session_name`` /
``set_session_name``, ``delete_session``, each with an ``a``-prefixed async twin.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.agent.owner import SessionOwner
from core.exceptions import SessionNotFoundError
from core.governance.sessions import delete_session
from core.models.base import Message
from core.run.history import RunRecord, SessionData, history_messages
from core.run.output import RunOutput, RunStatus, ToolExecution
from core.state.merge import deep_merge
from core.state.schema_session import checked_checkpoint
from core.state.session import SessionHandle
from core.state.view import AgentState
from core.utils.sync import run_sync


@dataclass(frozen=True, slots=True)
class Session:
    """A stored session as Agno's ``get_session`` shows it."""

    session_id: str
    user_id: str | None
    session_state: dict[str, Any]
    runs: list[RunRecord]
    session_name: str | None
    kind: str
    owner_id: str | None
    version: int
    created_at: float
    updated_at: float
    session_data: dict[str, Any] = field(default_factory=dict)


class SessionStateApi(SessionOwner):
    """``get_session_state`` / ``update_session_state`` / ``state`` for a session owner."""

    async def aget_session_state(self, session_id: str | None = None) -> dict[str, Any]:
        """The stored state of a session (the default for a session not yet created)."""
        record = await self.db.aload(session_id or self.session_id)
        if record is None:
            return copy.deepcopy(self.session_state)
        return record.state

    def get_session_state(self, session_id: str | None = None) -> dict[str, Any]:
        """Sync twin of :meth:`aget_session_state`."""
        return run_sync(self.aget_session_state(session_id))

    def _open_outside_run(
        self, session_id: str | None
    ) -> contextlib.AbstractAsyncContextManager[SessionHandle]:
        """The session under its lease, for a change made outside any run."""
        return self.open_run_session(session_id, None)

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

    # -- sessions, their history and names ------------------------------------------
    async def aget_session(self, session_id: str | None = None) -> Session | None:
        """The stored session (state, runs, name, meta), or None when there is none."""
        record = await self.db.aload(session_id or self.session_id)
        if record is None:
            return None
        data = SessionData.decode(record.data)
        return Session(
            session_id=record.session_id,
            user_id=record.user_id,
            session_state=record.state,
            runs=data.runs,
            session_name=data.name,
            kind=record.kind,
            owner_id=record.owner_id,
            version=record.version,
            created_at=record.created_at,
            updated_at=record.updated_at,
            session_data={"session_state": record.state, "session_name": data.name},
        )

    def get_session(self, session_id: str | None = None) -> Session | None:
        """Sync twin of :meth:`aget_session`."""
        return run_sync(self.aget_session(session_id))

    async def aget_chat_history(self, session_id: str | None = None) -> list[Message]:
        """The questions and answers of the session's completed runs, oldest first.

        In a thread several users share, each question names who asked it.
        """
        session = await self.aget_session(session_id)
        if session is None:
            return []
        return history_messages(SessionData(session.runs, session.session_name), None)

    def get_chat_history(self, session_id: str | None = None) -> list[Message]:
        """Sync twin of :meth:`aget_chat_history`."""
        return run_sync(self.aget_chat_history(session_id))

    async def aget_session_messages(self, session_id: str | None = None) -> list[Message]:
        """The session's stored messages (the same turns as the chat history: the run
        history keeps questions, answers and tool calls, not every model message)."""
        return await self.aget_chat_history(session_id)

    def get_session_messages(self, session_id: str | None = None) -> list[Message]:
        """Sync twin of :meth:`aget_session_messages`."""
        return run_sync(self.aget_session_messages(session_id))

    async def aget_last_run_output(self, session_id: str | None = None) -> RunOutput | None:
        """The last stored run of the session as a RunOutput (None when it has none)."""
        session = await self.aget_session(session_id)
        if session is None or not session.runs:
            return None
        run = session.runs[-1]
        return RunOutput(
            run_id=run.run_id,
            session_id=session.session_id,
            user_id=run.user_id,
            content=run.output,
            session_state=session.session_state,
            tools=[
                ToolExecution(c.tool_call_id, c.name, dict(c.arguments), c.result or "", c.error)
                for c in run.tool_calls
            ],
            agent_id=run.owner_id,
            status=RunStatus(run.status),
        )

    def get_last_run_output(self, session_id: str | None = None) -> RunOutput | None:
        """Sync twin of :meth:`aget_last_run_output`."""
        return run_sync(self.aget_last_run_output(session_id))

    async def aget_session_name(self, session_id: str | None = None) -> str | None:
        """The session's name, None when it has none."""
        session = await self.aget_session(session_id)
        return None if session is None else session.session_name

    def get_session_name(self, session_id: str | None = None) -> str | None:
        """Sync twin of :meth:`aget_session_name`."""
        return run_sync(self.aget_session_name(session_id))

    async def aset_session_name(
        self, session_id: str | None = None, session_name: str | None = None
    ) -> str:
        """Name a session (saved with it, under its lease); returns the name."""
        if not session_name or not session_name.strip():
            raise ValueError("session_name must be a non-empty string")
        name = session_name.strip()
        async with self._open_outside_run(session_id) as handle:
            handle.set_name(name)
            await handle.persist()
        return name

    def set_session_name(
        self, session_id: str | None = None, session_name: str | None = None
    ) -> str:
        """Sync twin of :meth:`aset_session_name`."""
        return run_sync(self.aset_session_name(session_id, session_name))

    async def adelete_session(self, session_id: str | None = None) -> bool:
        """Delete a session with its history (under its lease); False when there was none."""
        try:
            await delete_session(self.db, session_id or self.session_id)
        except SessionNotFoundError:
            return False
        return True

    def delete_session(self, session_id: str | None = None) -> bool:
        """Sync twin of :meth:`adelete_session`."""
        return run_sync(self.adelete_session(session_id))

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
