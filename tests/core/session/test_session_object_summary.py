"""A session object carries the stored session summary, and saving it sets or clears it."""

from __future__ import annotations

import json

from core.agent import Agent
from core.db.base import BaseDb
from core.run.history import SessionData
from core.session import AgentSession, SessionSummary
from core.testing import ScriptedModel
from tests.db.conftest import backend as backend
from tests.db.conftest import store as store


async def _stored_summary(db: BaseDb, session_id: str) -> dict[str, object] | None:
    record = await db.aload(session_id)
    assert record is not None
    return SessionData.decode(record.data).summary


async def test_the_session_object_reads_and_saves_the_summary(store: BaseDb) -> None:
    answer = json.dumps({"summary": "Ana keeps a list.", "topics": ["shopping"]})
    agent = Agent(
        model=ScriptedModel(["Milk added.", answer]), db=store, enable_session_summaries=True
    )
    await agent.arun("add milk", session_id="s1", user_id="ana")

    session = await agent.aget_session(session_id="s1")
    assert isinstance(session, AgentSession)
    assert isinstance(session.summary, SessionSummary)
    assert session.summary.summary == "Ana keeps a list."

    session.summary = SessionSummary(summary="Edited by hand.", topics=["admin"])
    await agent.asave_session(session)
    stored = await _stored_summary(store, "s1")
    assert stored is not None
    assert (stored["summary"], stored["topics"]) == ("Edited by hand.", ["admin"])
    assert stored["users"] == ["ana"]  # erasure still knows whose runs it came from

    session = await agent.aget_session(session_id="s1")
    session.summary = None
    await agent.asave_session(session)
    assert await _stored_summary(store, "s1") is None
