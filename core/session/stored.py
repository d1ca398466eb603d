"""Session objects from stored records, and saved back through the session's lease.

Reading builds an AgentSession / TeamSession / WorkflowSession from one load. Saving
one (``db.upsert_session`` or an owner's ``save_session``) opens the session the way a
run does (lease, load), puts the object's state, name, data and runs in, and saves
them in one fenced save with an audit entry of kind ``"save"``: a save from outside a
run never overwrites a run's save it did not see. An object read from the store
remembers the version it was read at and is refused (StaleVersionError, nothing
written) when the session has moved on since: saving an old copy never rolls back a
run. An object the program built (``version`` None) replaces what is stored, as in
Agno; the audit entry keeps what it replaced, so ``undo`` brings it back.

``session_data["session_state"]`` replaces the stored state when present (a session
object without it leaves the state as stored, so a partial object never erases
state); ``runs`` replace the stored runs when not None, each kept within the run
history's bounds (core.run.transcript).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from core.db.base import BaseDb
from core.db.records import SessionMeta, SessionRecord
from core.db.session_types import SessionType, register_session_objects
from core.exceptions import StaleVersionError
from core.run.history import SessionData, bounded_summary
from core.session.agent import AgentSession
from core.session.base import BaseSession
from core.session.runs import output_of, record_of
from core.session.summary import SessionSummary
from core.session.team import TeamSession
from core.session.workflow import WorkflowSession
from core.state.session import SessionHandle, open_session

__all__ = ["StoredSessions", "apply_session", "session_of"]

_CLASSES: dict[SessionType, type[BaseSession]] = {
    SessionType.AGENT: AgentSession,
    SessionType.TEAM: TeamSession,
    SessionType.WORKFLOW: WorkflowSession,
}


def type_of(record: SessionRecord) -> SessionType | None:
    """The kind of owner the stored session belongs to (None: not one of Agno's)."""
    try:
        return SessionType(record.kind)
    except ValueError:
        return None


def session_of(record: SessionRecord) -> BaseSession:
    """The stored session as its kind's session object."""
    data = SessionData.decode(record.data)
    cls = _CLASSES[type_of(record) or SessionType.AGENT]
    session_data: dict[str, Any] = {**data.extra, "session_state": record.state}
    if data.name is not None:
        session_data["session_name"] = data.name
    session = cls(
        session_id=record.session_id,
        user_id=record.user_id,
        session_data=session_data,
        metadata=data.metadata,
        runs=[output_of(r, record.session_id) for r in data.runs],
        summary=SessionSummary.from_dict(data.summary) if data.summary else None,
        created_at=int(record.created_at),
        updated_at=int(record.updated_at),
        version=record.version,
    )
    setattr(session, cls.owner_field, record.owner_id)
    return session


def apply_session(handle: SessionHandle, session: BaseSession) -> None:
    """Put the object's state, name, data and runs into the open session (saved with
    its next persist, audited as a ``"save"``)."""
    if session.version is not None and handle.version != session.version:
        raise StaleVersionError(session.session_id, session.version, handle.version)
    summary = _summary_dict(session.summary)
    rest = dict(session.session_data or {})
    state = rest.pop("session_state", None)
    name = rest.pop("session_name", None)
    if state is not None:
        if not isinstance(state, dict):
            raise TypeError(
                f"session_data['session_state'] must be a dict, not {type(state).__name__}"
            )
        handle.state.clear()
        handle.state.update(state)
    runs = None if session.runs is None else list(session.runs)

    def change(data: SessionData) -> None:
        data.name = None if name is None else str(name)
        data.extra = rest
        data.metadata = session.metadata
        if summary is None:
            data.summary = None
        else:  # the users it was made from stay known (erasure drops it for them)
            users = (data.summary or {}).get("users") or []
            data.summary = bounded_summary({**summary, "users": users})
        if runs is not None:
            kept = {r.run_id: r for r in data.runs}
            data.runs = []
            for output in runs:
                record = record_of(output, session.owner_id)
                known = kept.get(record.run_id)
                if known is not None:  # a stored run keeps when it started
                    record = replace(record, created_at=known.created_at)
                data.runs.append(record)

    handle.change_data(change)
    handle.audit_kind = "save"


def _summary_dict(summary: object) -> dict[str, Any] | None:
    """A session object's summary as data: a SessionSummary, its dict form, or None."""
    if summary is None:
        return None
    if isinstance(summary, SessionSummary):
        return summary.to_dict()
    if isinstance(summary, Mapping) and isinstance(summary.get("summary"), str):
        return dict(summary)
    raise TypeError(
        f"session.summary must be a SessionSummary, its dict form or None, not "
        f"{type(summary).__name__}"
    )


def _users(record: SessionRecord) -> set[str]:
    users = {r.user_id for r in SessionData.decode(record.data).runs if r.user_id}
    return users | ({record.user_id} if record.user_id else set())


class StoredSessions:
    """The store's session objects (registered with core.db for ``db.get_session``)."""

    async def read(
        self,
        db: BaseDb,
        session_id: str,
        session_type: SessionType,
        user_id: str | None,
        deserialize: bool,
    ) -> Any:
        """The session as an object (a dict when not ``deserialize``), None when there
        is none of that type, or when ``user_id`` never acted in it."""
        record = await db.aload(session_id)
        if record is None or type_of(record) is not session_type:
            return None
        if user_id is not None and user_id not in _users(record):
            return None
        session = session_of(record)
        return session if deserialize else session.to_dict()

    async def upsert(self, db: BaseDb, session: Any, deserialize: bool) -> Any:
        """Save the whole object under the session's lease, audited; as stored after."""
        if not isinstance(session, BaseSession):
            raise TypeError(
                f"upsert_session takes an AgentSession, TeamSession or WorkflowSession, "
                f"not {type(session).__name__}"
            )
        meta = SessionMeta(
            kind=session.session_type.value, owner_id=session.owner_id, user_id=session.user_id
        )
        async with contextlib.AsyncExitStack() as stack:
            handle = await stack.enter_async_context(
                open_session(
                    db,
                    session_id=session.session_id,
                    user_id=None,
                    run_id=uuid.uuid4().hex,
                    meta=meta,
                    default=None,
                )
            )
            apply_session(handle, session)
            await handle.persist()
            session.version = handle.version
        return await self.read(db, session.session_id, session.session_type, None, deserialize)


register_session_objects(StoredSessions())
