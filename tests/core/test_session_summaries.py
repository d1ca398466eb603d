"""Session summaries (Agno's ``enable_session_summaries``), on every store.

After each model run the session's summary is written by a model asked for
``{"summary", "topics"}`` JSON, stored in the session's data in the run's save, read
back with ``get_session_summary`` and shown in the system message with
``add_session_summary_to_context``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.models.base import Message, ModelResponse, Usage
from core.run.history import SUMMARY_CHARS, SessionData
from core.session.summary import SessionSummary, SessionSummaryManager
from core.team import Team
from core.testing import ScriptedModel, tool_call
from core.tools import tool
from tests.db.conftest import backend as backend
from tests.db.conftest import store as store


def summary_json(text: str, *topics: str) -> str:
    """The answer a summary model gives."""
    return json.dumps({"summary": text, "topics": list(topics)})


async def stored_summary(db: BaseDb, session_id: str) -> dict[str, Any] | None:
    """The summary as stored in the session's data."""
    record = await db.aload(session_id)
    assert record is not None
    return SessionData.decode(record.data).summary


async def summary_text(owner: Agent | Team, session_id: str) -> str | None:
    """The text of the owner's stored summary of the session (None: none)."""
    summary = await owner.aget_session_summary(session_id)
    return None if summary is None else summary.summary


async def test_summary_is_written_stored_and_read_back(store: BaseDb) -> None:
    """A run writes the summary into the session record; a new agent reads it back."""
    model = ScriptedModel(["Milk is on the list.", summary_json("Ana keeps a list.", "shopping")])
    agent = Agent(model=model, db=store, enable_session_summaries=True)
    await agent.arun("add milk", session_id="s1", user_id="ana")

    reader = Agent(model=ScriptedModel(), db=store)
    summary = await reader.aget_session_summary(session_id="s1")
    assert summary is not None
    assert (summary.summary, summary.topics) == ("Ana keeps a list.", ["shopping"])
    assert summary.updated_at is not None
    stored = await stored_summary(store, "s1")
    assert stored is not None and stored["users"] == ["ana"]
    # the summary request carried the conversation and asked for the JSON shape
    request = model.requests[1]
    assert (
        "User: add milk" in request.system and "Assistant: Milk is on the list." in request.system
    )
    assert '"summary"' in request.system and request.messages[-1].content == (
        "Provide the summary of the conversation."
    )


async def test_summary_is_shown_in_the_next_runs_system_message(store: BaseDb) -> None:
    """``add_session_summary_to_context`` defaults on with summaries and shows the text."""
    model = ScriptedModel(["ok", summary_json("Ana plans a trip."), "sure", summary_json("Trip.")])
    agent = Agent(model=model, db=store, enable_session_summaries=True)
    assert agent.add_session_summary_to_context is True
    await agent.arun("plan a trip", session_id="s1")
    await agent.arun("and a hotel", session_id="s1")
    assert "Ana plans a trip." in model.requests[2].system
    assert "Ana plans a trip." not in model.requests[0].system
    assert await summary_text(agent, "s1") == "Trip."


async def test_without_summaries_nothing_is_written(store: BaseDb) -> None:
    """Summaries are off by default: one model call per run, no summary stored."""
    model = ScriptedModel(["hello"])
    agent = Agent(model=model, db=store)
    await agent.arun("hi", session_id="s1")
    assert await agent.aget_session_summary("s1") is None
    assert await stored_summary(store, "s1") is None
    assert len(model.requests) == 1


async def test_a_manager_alone_shows_but_does_not_write(store: BaseDb) -> None:
    """As in Agno, a manager without ``enable_session_summaries`` writes nothing."""
    model = ScriptedModel(["hello"])
    agent = Agent(model=model, db=store, session_summary_manager=SessionSummaryManager(model=model))
    assert agent.add_session_summary_to_context is True
    await agent.arun("hi", session_id="s1")
    assert await agent.aget_session_summary("s1") is None and len(model.requests) == 1


async def test_managers_model_writes_it_and_its_tokens_count(store: BaseDb) -> None:
    """The manager's own model writes the summary; its tokens are the run's too."""
    summarizer = ScriptedModel([ModelResponse(summary_json("Short."), usage=Usage(30, 5))])
    manager = SessionSummaryManager(model=summarizer, summary_request_message="Summarize!")
    main = ScriptedModel([ModelResponse("answer", usage=Usage(10, 2))])
    agent = Agent(
        model=main, db=store, enable_session_summaries=True, session_summary_manager=manager
    )
    output = await agent.arun("q", session_id="s1")
    assert (output.metrics.input_tokens, output.metrics.output_tokens) == (40, 7)
    assert summarizer.requests[0].messages[-1].content == "Summarize!"
    assert manager.model is summarizer  # the caller's manager is left as it was
    assert await summary_text(agent, "s1") == "Short."


@pytest.mark.parametrize("failure", ["not json at all", RuntimeError("model down")])
async def test_a_failed_summary_keeps_the_old_one_and_the_run(store: BaseDb, failure: Any) -> None:
    """An unreadable answer or a failing model leaves the previous summary; the run stands."""
    model = ScriptedModel(["one", summary_json("First."), "two", failure])
    agent = Agent(model=model, db=store, enable_session_summaries=True, session_state={"n": 0})
    await agent.arun("q1", session_id="s1")
    output = await agent.arun("q2", session_id="s1")
    assert output.content == "two"
    assert await summary_text(agent, "s1") == "First."
    session = await agent.aget_session("s1")
    assert session is not None and [r.output for r in session.runs] == ["one", "two"]


async def test_last_n_runs_and_conversation_limit_bound_what_is_sent() -> None:
    """The summary model sees only the last runs / messages asked for."""
    model = ScriptedModel(
        ["a1", summary_json("x"), "a2", summary_json("y"), "a3", summary_json("z")]
    )
    manager = SessionSummaryManager(last_n_runs=2, conversation_limit=3)
    agent = Agent(model=model, enable_session_summaries=True, session_summary_manager=manager)
    for question in ("q1", "q2", "q3"):
        await agent.arun(question, session_id="s1")
    sent = model.requests[5].system
    assert "q1" not in sent and "a2" in sent and "q3" in sent and "q2" not in sent


async def test_summary_is_bounded(store: BaseDb) -> None:
    """A huge answer is stored cut to its bound, topics too."""
    model = ScriptedModel(["ok", summary_json("x" * 50_000, *[f"t{i}" for i in range(100)])])
    agent = Agent(model=model, db=store, enable_session_summaries=True)
    await agent.arun("q", session_id="s1")
    stored = await stored_summary(store, "s1")
    assert stored is not None and len(stored["summary"]) == SUMMARY_CHARS
    assert len(stored["topics"]) == 20


async def test_team_writes_and_reads_its_summary(store: BaseDb) -> None:
    """Teams take the same options and read back with ``get_session_summary``."""
    member = Agent(name="helper", model=ScriptedModel())
    model = ScriptedModel(["done", summary_json("Team talk."), "again", summary_json("More.")])
    team = Team(members=[member], model=model, db=store, enable_session_summaries=True)
    await team.arun("plan", session_id="t1")
    assert await summary_text(team, "t1") == "Team talk."
    await team.arun("next", session_id="t1")
    assert "Team talk." in model.requests[2].system


def test_sync_get_session_summary_and_agnos_dict_shape() -> None:
    """``get_session_summary`` (sync) and SessionSummary's to_dict/from_dict shapes."""
    agent = Agent(
        model=ScriptedModel(["ok", summary_json("S.", "t")]), enable_session_summaries=True
    )
    agent.run("q", session_id="s1")
    summary = agent.get_session_summary(session_id="s1")
    assert summary is not None and summary.topics == ["t"]
    assert SessionSummary.from_dict(summary.to_dict()) == summary
    assert SessionSummary("only").to_dict() == {"summary": "only"}


def test_manager_refuses_bad_limits() -> None:
    """last_n_runs and conversation_limit must be positive whole numbers."""
    with pytest.raises(ValueError, match="last_n_runs must be a whole number > 0"):
        SessionSummaryManager(last_n_runs=0)
    with pytest.raises(ValueError, match="conversation_limit must be a whole number > 0"):
        SessionSummaryManager(conversation_limit=-1)


async def test_a_streamed_run_writes_the_summary_too(store: BaseDb) -> None:
    """Streaming goes through the same run path: the summary is saved with the run."""
    model = ScriptedModel(["hello", summary_json("Streamed.")])
    agent = Agent(model=model, db=store, enable_session_summaries=True)
    async for _ in agent.arun("hi", session_id="s1", stream=True):
        pass
    assert await summary_text(agent, "s1") == "Streamed."


@tool(requires_confirmation=True)
def clear_list(session_state: dict[str, Any]) -> str:
    """Clear the list."""
    session_state["items"] = []
    return "cleared"


async def test_a_paused_run_is_summarized_once_it_completes(store: BaseDb) -> None:
    """No summary while a run waits for confirmation; the resumed run writes it."""
    model = ScriptedModel([tool_call("clear_list"), "Cleared.", summary_json("List cleared.")])
    agent = Agent(model=model, db=store, tools=[clear_list], enable_session_summaries=True)
    paused = await agent.arun("clear it", session_id="s1")
    assert paused.is_paused and len(model.requests) == 1
    assert await summary_text(agent, "s1") is None
    [waiting] = paused.tools_requiring_confirmation
    await agent.acontinue_run(paused.run_id, approved=[waiting.tool_call_id], session_id="s1")
    assert await summary_text(agent, "s1") == "List cleared."


class _HangingSummary(ScriptedModel):
    """Answers the run, then never answers the summary request."""

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        if self.remaining == 0:
            await asyncio.Event().wait()
        return await super().ainvoke(messages, tools)


async def test_a_hanging_summary_model_does_not_cost_the_run(store: BaseDb) -> None:
    """The summary may use half the time left before the deadline: a hung summary call
    is given up and the run's answer and state are still saved."""

    def remember(session_state: dict[str, Any]) -> str:
        """Remember."""
        session_state["kept"] = True
        return "ok"

    model = _HangingSummary([tool_call("remember"), "Kept."])
    agent = Agent(
        model=model, db=store, tools=[remember], enable_session_summaries=True, run_timeout=4.0
    )
    output = await agent.arun("remember", session_id="s1")
    assert output.content == "Kept."
    assert await agent.aget_session_state("s1") == {"kept": True}
    session = await agent.aget_session("s1")
    assert session is not None and [r.output for r in session.runs] == ["Kept."]
    assert await summary_text(agent, "s1") is None
