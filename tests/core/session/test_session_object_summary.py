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


def test_from_dict_reads_a_summary_as_a_session_summary() -> None:
    session = AgentSession.from_dict(
        {"session_id": "s", "summary": {"summary": "Short.", "topics": ["t"]}}
    )
    assert session is not None and isinstance(session.summary, SessionSummary)
    assert (session.summary.summary, session.summary.topics) == ("Short.", ["t"])
    assert session.to_dict()["summary"] == {"summary": "Short.", "topics": ["t"]}


async def test_messages_from_history_keep_their_flag_through_the_store(store: BaseDb) -> None:
    """A saved run's messages copied from history stay marked, so get_messages skips them."""
    from core.models.message import Message
    from core.run.output import RunOutput

    session = AgentSession(session_id="h", agent_id="a", runs=[])
    session.upsert_run(
        RunOutput(
            run_id="r1",
            session_id="h",
            user_id=None,
            messages=[
                Message("user", "old", from_history=True),
                Message("user", "new"),
                Message("assistant", "answer"),
            ],
        )
    )
    await store.aupsert_session(session)
    back = await store.aget_session("h")
    assert [m.content for m in back.get_messages()] == ["new", "answer"]
    assert [m.content for m in back.get_messages(skip_history_messages=False)] == [
        "old",
        "new",
        "answer",
    ]
