"""Sessions outside a run, as objects (agents, teams, workflows): Agno's names.

``get_session`` gives the owner's stored session as an AgentSession / TeamSession /
WorkflowSession (core.session), ``save_session`` saves one back, and the rest read
from it: ``get_run_output``, ``get_last_run_output``, ``get_session_metrics``,
``get_chat_history``, ``get_session_messages``, ``get_session_name`` /
``set_session_name``, ``delete_session``; each has an ``a``-prefixed async twin.

A save from outside a run takes the path a run takes (the session's lease, a fenced
save, an audit entry of kind ``"save"``), so it never overwrites a run's save it did
not see, and the owner's state schema checks it first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from core.agent.owner import SessionOwner
from core.agent.session_name import generate_session_name
from core.db.session_types import SessionType
from core.exceptions import NoModelError, SessionNotFoundError
from core.governance.sessions import delete_session
from core.models.base import Message, Model
from core.run.history import SessionData, history_messages
from core.run.output import RunMetrics, RunOutput, RunStatus
from core.session.base import BaseSession
from core.session.stored import apply_session
from core.state.schema_session import checked_checkpoint
from core.state.session import SessionHandle
from core.utils.sync import run_sync


class SessionApi(SessionOwner):
    """Agno's session methods for an agent, team or workflow."""

    def _open_outside_run(
        self, session_id: str | None
    ) -> contextlib.AbstractAsyncContextManager[SessionHandle]:
        """The session under its lease, for a change made outside any run."""
        return self.open_run_session(session_id, None)

    # -- the session object -----------------------------------------------------------
    async def aget_session(
        self, session_id: str | None = None, user_id: str | None = None
    ) -> BaseSession | None:
        """The stored session as an object, or None when there is none (or ``user_id``
        never acted in it)."""
        session: BaseSession | None = await self.db.aget_session(
            session_id or self.session_id, SessionType(self.kind), user_id
        )
        return session

    def get_session(
        self, session_id: str | None = None, user_id: str | None = None
    ) -> BaseSession | None:
        """Sync twin of :meth:`aget_session`."""
        return run_sync(self.aget_session(session_id, user_id))

    async def asave_session(self, session: BaseSession) -> None:
        """Save a session object (its state, name, data and runs) under its lease, audited.

        An object read before the session moved on is refused (StaleVersionError,
        nothing written: read it again). With a state schema, a state that does not
        fit raises StateSchemaError and nothing is stored.
        """
        async with self._open_outside_run(session.session_id) as handle:
            apply_session(handle, session)
            checked_checkpoint(handle)  # raises before the save: nothing is stored
            await handle.persist()
            session.version = handle.version

    def save_session(self, session: BaseSession) -> None:
        """Sync twin of :meth:`asave_session`."""
        run_sync(self.asave_session(session))

    # -- runs -------------------------------------------------------------------------
    async def aget_run_output(
        self, run_id: str, session_id: str | None = None, user_id: str | None = None
    ) -> RunOutput | None:
        """A stored run of the session, with its kept messages (None when not kept)."""
        session = await self.aget_session(session_id, user_id)
        return None if session is None else session.get_run(run_id)

    def get_run_output(
        self, run_id: str, session_id: str | None = None, user_id: str | None = None
    ) -> RunOutput | None:
        """Sync twin of :meth:`aget_run_output`."""
        return run_sync(self.aget_run_output(run_id, session_id, user_id))

    async def aget_last_run_output(self, session_id: str | None = None) -> RunOutput | None:
        """The session's newest stored run, with its messages (None when it has none)."""
        session = await self.aget_session(session_id)
        return session.runs[-1] if session is not None and session.runs else None

    def get_last_run_output(self, session_id: str | None = None) -> RunOutput | None:
        """Sync twin of :meth:`aget_last_run_output`."""
        return run_sync(self.aget_last_run_output(session_id))

    async def aget_session_metrics(self, session_id: str | None = None) -> RunMetrics | None:
        """The counts of the session's kept runs added up (None: no such session)."""
        session = await self.aget_session(session_id)
        if session is None:
            return None
        return sum((r.metrics for r in session.runs or ()), RunMetrics())

    def get_session_metrics(self, session_id: str | None = None) -> RunMetrics | None:
        """Sync twin of :meth:`aget_session_metrics`."""
        return run_sync(self.aget_session_metrics(session_id))

    # -- messages ---------------------------------------------------------------------
    async def aget_chat_history(
        self, session_id: str | None = None, last_n_runs: int | None = None
    ) -> list[Message]:
        """The questions and answers of the session's completed runs (the last
        ``last_n_runs`` when given), oldest first.

        In a thread several users share, each question names who asked it.
        """
        record = await self.db.aload(session_id or self.session_id)
        if record is None:
            return []
        return history_messages(SessionData.decode(record.data), last_n_runs)

    def get_chat_history(
        self, session_id: str | None = None, last_n_runs: int | None = None
    ) -> list[Message]:
        """Sync twin of :meth:`aget_chat_history`."""
        return run_sync(self.aget_chat_history(session_id, last_n_runs))

    async def aget_session_messages(
        self,
        session_id: str | None = None,
        last_n_runs: int | None = None,
        limit: int | None = None,
        skip_roles: Iterable[str] | None = None,
        skip_statuses: Iterable[RunStatus] | None = None,
        skip_history_messages: bool = True,
    ) -> list[Message]:
        """The kept messages of the session's runs (AgentSession.get_messages' filters)."""
        session = await self.aget_session(session_id)
        if session is None:
            return []
        return session.get_messages(
            last_n_runs=last_n_runs,
            limit=limit,
            skip_roles=skip_roles,
            skip_statuses=skip_statuses,
            skip_history_messages=skip_history_messages,
        )

    def get_session_messages(
        self,
        session_id: str | None = None,
        last_n_runs: int | None = None,
        limit: int | None = None,
        skip_roles: Iterable[str] | None = None,
        skip_statuses: Iterable[RunStatus] | None = None,
        skip_history_messages: bool = True,
    ) -> list[Message]:
        """Sync twin of :meth:`aget_session_messages`."""
        return run_sync(
            self.aget_session_messages(
                session_id, last_n_runs, limit, skip_roles, skip_statuses, skip_history_messages
            )
        )

    # -- names ------------------------------------------------------------------------
    async def aget_session_name(self, session_id: str | None = None) -> str | None:
        """The session's name, None when it has none."""
        session = await self.aget_session(session_id)
        name = None if session is None else (session.session_data or {}).get("session_name")
        return None if name is None else str(name)

    def get_session_name(self, session_id: str | None = None) -> str | None:
        """Sync twin of :meth:`aget_session_name`."""
        return run_sync(self.aget_session_name(session_id))

    async def aset_session_name(
        self,
        session_id: str | None = None,
        autogenerate: bool = False,
        session_name: str | None = None,
    ) -> BaseSession:
        """Name a session (``autogenerate``: the model names it from its messages);
        saved with it under its lease; returns the session as stored."""
        sid = session_id or self.session_id
        if autogenerate:
            name = await self._generated_name(sid)
        elif not session_name or not session_name.strip():
            raise ValueError("session_name must be a non-empty string (or autogenerate=True)")
        else:
            name = session_name.strip()
        async with self._open_outside_run(sid) as handle:
            handle.set_name(name)
            await handle.persist()
        session = await self.aget_session(sid)
        if session is None:  # deleted between the save and the read
            raise SessionNotFoundError(sid)
        return session

    def set_session_name(
        self,
        session_id: str | None = None,
        autogenerate: bool = False,
        session_name: str | None = None,
    ) -> BaseSession:
        """Sync twin of :meth:`aset_session_name`."""
        return run_sync(self.aset_session_name(session_id, autogenerate, session_name))

    async def _generated_name(self, session_id: str) -> str:
        model = getattr(self, "model", None)
        if not isinstance(model, Model):
            raise NoModelError(f"{self.kind} {self.id!r} has no model to name the session with")
        session = await self.aget_session(session_id)
        if session is None:
            raise SessionNotFoundError(session_id)
        return await generate_session_name(model, session.get_messages())

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


__all__ = ["SessionApi"]
