"""Agno's ``agno.session`` path: stored sessions as objects, and session summaries.

``db.get_session(session_id, SessionType.AGENT)`` and an agent's ``get_session()``
return an :class:`AgentSession` (teams a :class:`TeamSession`, workflows a
:class:`WorkflowSession`): ``session_data`` with ``session_state`` and
``session_name``, ``metadata``, ``runs`` as run outputs with their kept messages,
``summary`` (a :class:`SessionSummary`, written by a :class:`SessionSummaryManager`),
timestamps. Importing this package registers the reader and writer the stores use
(core/db/session_types.py).
"""

from __future__ import annotations

from core.session.agent import AgentSession
from core.session.stored import StoredSessions
from core.session.summary import SessionSummary, SessionSummaryManager
from core.session.team import TeamSession
from core.session.workflow import WorkflowSession

#: any of the three (Agno's ``Session`` union)
Session = AgentSession | TeamSession | WorkflowSession

__all__ = [
    "AgentSession",
    "Session",
    "SessionSummary",
    "SessionSummaryManager",
    "StoredSessions",
    "TeamSession",
    "WorkflowSession",
]
