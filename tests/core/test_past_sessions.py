"""``search_past_sessions=True``: Agno's ``search_past_sessions`` and
``read_past_session`` tools, scoped to the run's user."""

from __future__ import annotations

import json

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.team import Team
from core.testing import ScriptedModel, tool_call


def _chat(agent: Agent, session_id: str, question: str, answer: str, user: str = "u") -> None:
    agent.model = ScriptedModel([answer])
    agent.run(question, session_id=session_id, user_id=user)


def _tool_result(agent: Agent, call: object, session_id: str, user: str = "u") -> str:
    agent.model = ScriptedModel([call, "ok"])
    output = agent.run("what did we talk about?", session_id=session_id, user_id=user)
    return str(output.tools[0].result)


@pytest.fixture
def agent() -> Agent:
    return Agent(
        model=ScriptedModel([]),
        db=InMemoryDb(),
        search_past_sessions=True,
        num_past_sessions_to_search=2,
        num_past_session_runs_in_search=1,
    )


def test_search_lists_the_latest_sessions_with_previews(agent: Agent) -> None:
    _chat(agent, "s1", "I like jazz", "Noted jazz.")
    _chat(agent, "s2", "I bake bread", "Noted bread.")
    _chat(agent, "s2", "with rye", "Noted rye.")
    _chat(agent, "s3", "Mars is red", "Indeed.")
    _chat(agent, "other", "secret of v", "Kept.", user="v")

    found = json.loads(_tool_result(agent, tool_call("search_past_sessions"), "s4"))

    # the two latest of this user's sessions, the current one left out, one run each
    assert [s["session_id"] for s in found] == ["s3", "s2"]
    assert found[1]["runs"] == [{"user": "I bake bread", "assistant": "Noted bread."}]
    assert set(found[0]) == {"session_id", "created_at", "runs"}


def test_read_past_session_gives_the_conversation(agent: Agent) -> None:
    _chat(agent, "s1", "I like jazz", "Noted jazz.")
    _chat(agent, "s1", "and blues", "Noted blues.")

    text = _tool_result(agent, tool_call("read_past_session", session_id="s1"), "s9")

    assert text.splitlines()[0] == "Session: s1"
    assert "User: I like jazz\n\nAssistant: Noted jazz.\n\nUser: and blues" in text


def test_another_users_session_cannot_be_read(agent: Agent) -> None:
    _chat(agent, "theirs", "my pin is 1234", "Kept.", user="v")

    text = _tool_result(agent, tool_call("read_past_session", session_id="theirs"), "mine")

    assert text == "Session not found."


def test_a_team_searches_its_own_past_sessions() -> None:
    member = Agent(model=ScriptedModel([]), name="M")
    team = Team(
        members=[member], model=ScriptedModel(["hello"]), db=InMemoryDb(), search_past_sessions=True
    )
    team.run("plan a trip", session_id="t1", user_id="u")
    team.model = ScriptedModel([tool_call("search_past_sessions"), "ok"])

    output = team.run("what did we plan?", session_id="t2", user_id="u")

    found = json.loads(str(output.tools[0].result))
    assert [(s["session_id"], s["runs"][0]["user"]) for s in found] == [("t1", "plan a trip")]


def test_without_the_option_there_are_no_such_tools() -> None:
    assert "search_past_sessions" not in Agent(model=ScriptedModel([])).functions
