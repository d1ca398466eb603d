"""Team modes with Agno's meaning: coordinate, route, collaborate."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.team import Team
from core.testing import ScriptedModel, tool_call


def note(session_state: dict[str, Any], text: str) -> str:
    """Write a note.

    Args:
        text: The note.
    """
    session_state.setdefault("notes", []).append(text)
    return f"noted {text}"


def member(name: str, turns: list[Any]) -> Agent:
    """A member with the note tool and a scripted model."""
    return Agent(model=ScriptedModel(turns), name=name, tools=[note])


async def test_route_returns_the_members_answer_without_a_second_leader_call() -> None:
    """Route: the leader picks one member and the team's answer is that member's, verbatim."""
    leader = ScriptedModel([tool_call("delegate_task_to_member", member_id="cook", task="soup?")])
    cook = member("Cook", [tool_call("note", text="soup"), "Tomato soup, 20 minutes."])
    team = Team(members=[cook, member("Buyer", [])], model=leader, mode="route")
    output = await team.arun("What's for dinner?")
    assert output.content == "Tomato soup, 20 minutes."
    assert len(leader.requests) == 1  # the leader's model was not asked to rewrite it
    assert output.metrics.model_calls == 1 + 2  # one leader call, two member calls
    assert output.session_state == {"notes": ["soup"]}
    assert "best suited" in leader.requests[0].system


async def test_route_streams_the_members_answer() -> None:
    """Route mode streams the member's answer as the team's content."""
    leader = ScriptedModel([tool_call("delegate_task_to_member", member_id="cook", task="x")])
    team = Team(members=[member("Cook", ["Soup."])], model=leader, mode="route")
    events = [e async for e in team.arun("dinner", stream=True)]
    assert "".join(e.content for e in events if not e.is_final) == "Soup."
    assert events[-1].run_output.content == "Soup."


async def test_route_leader_may_answer_itself() -> None:
    """Route: when the leader answers without delegating, that answer stands."""
    team = Team(members=[member("Cook", [])], model=ScriptedModel(["Nobody fits."]), mode="route")
    assert (await team.arun("weather?")).content == "Nobody fits."


async def test_coordinate_leader_synthesizes() -> None:
    """Coordinate (default): the leader delegates and writes the answer from the reply."""
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="cook", task="soup?"), "Dinner: soup."]
    )
    team = Team(members=[member("Cook", ["Soup."])], model=leader)
    output = await team.arun("dinner?")
    assert output.content == "Dinner: soup."
    assert leader.requests[1].messages[-1].content == "Soup."
    assert [m.content for m in output.member_responses] == ["Soup."]


async def test_collaborate_gives_the_task_to_every_member_in_order() -> None:
    """Collaborate: one call gives every member the task, in order; the leader synthesizes."""
    leader = ScriptedModel(
        [tool_call("delegate_task_to_all_members", task="plan dinner"), "Plan: soup and bread."]
    )
    cook = member("Cook", [tool_call("note", text="cook"), "Soup."])
    buyer = member("Buyer", [tool_call("note", text="buyer"), "Bread."])
    team = Team(members=[cook, buyer], model=leader, mode="collaborate")
    output = await team.arun("dinner")
    assert output.content == "Plan: soup and bread."
    assert leader.requests[1].messages[-1].content == "=== Cook ===\nSoup.\n\n=== Buyer ===\nBread."
    assert output.session_state == {"notes": ["cook", "buyer"]}
    tools = [t["function"]["name"] for t in leader.requests[0].tools]
    assert tools == ["delegate_task_to_all_members"]


async def test_share_member_interactions_shows_earlier_exchanges() -> None:
    """``share_member_interactions``: a later member sees what earlier members were asked."""
    leader = ScriptedModel(
        [
            tool_call("delegate_task_to_member", member_id="cook", task="what soup?"),
            tool_call("delegate_task_to_member", member_id="buyer", task="buy for it"),
            "Done.",
        ]
    )
    buyer_model = ScriptedModel(["Bought tomatoes."])
    buyer = Agent(model=buyer_model, name="Buyer")
    team = Team(
        members=[member("Cook", ["Tomato soup."]), buyer],
        model=leader,
        share_member_interactions=True,
    )
    await team.arun("dinner")
    asked = buyer_model.requests[0].messages[-1].content
    assert "Cook was asked: what soup?" in asked and "answered: Tomato soup." in asked


def test_show_members_responses_prints_them(capsys: pytest.CaptureFixture[str]) -> None:
    """``show_members_responses`` makes print_response print each member's answer."""
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="cook", task="x"), "OK."]
    )
    team = Team(members=[member("Cook", ["Soup."])], model=leader, show_members_responses=True)
    team.print_response("dinner")
    assert capsys.readouterr().out == "OK.\n--- cook ---\nSoup.\n"
