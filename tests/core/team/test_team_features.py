"""Team-level tools, hooks, agentic state, direct tool calls and construction errors."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.exceptions import ToolArgumentError, UnknownToolError
from core.team import Team
from core.testing import ScriptedModel, tool_call


def add_item(session_state: dict[str, Any], team: Team, item: str) -> str:
    """Add an item to the team's list.

    Args:
        item: What to add.
    """
    session_state["items"].append(item)
    return f"{team.name} added {item}"


def member(name: str, turns: list[Any] | None = None, **kwargs: Any) -> Agent:
    """A member agent with a scripted model."""
    return Agent(model=ScriptedModel(turns or []), name=name, **kwargs)


async def test_leader_prompt_lists_members_and_offers_delegation() -> None:
    """The leader's system message names each member; its tools include delegation."""
    leader = ScriptedModel(["Nothing to do."])
    team = Team(
        members=[member("Buyer", description="Buys things"), member("Cook")],
        model=leader,
        tools=[add_item],
        session_state={"items": []},
    )
    await team.arun("hi")
    system = leader.requests[0].system
    assert "- id: buyer, name: Buyer — Buys things" in system
    assert "- id: cook, name: Cook" in system
    names = [t["function"]["name"] for t in leader.requests[0].tools]
    assert names == ["add_item", "delegate_task_to_member"]
    assert list(team.functions) == ["add_item"]


async def test_team_tool_gets_team_and_state_and_hooks_wrap_it() -> None:
    """Team tools receive ``team`` and the state; hooks run around them, outermost first."""
    calls: list[str] = []

    def audit(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
        calls.append(f"before {function_name} {arguments}")
        return function_call(**{**arguments, "item": arguments["item"].lower()})

    leader = ScriptedModel([tool_call("add_item", item="MILK"), "Added."])
    team = Team(
        members=[],
        model=leader,
        name="Crew",
        tools=[add_item],
        tool_hooks=[audit],
        session_state={"items": []},
    )
    output = await team.arun("add milk")
    assert output.tools[0].result == "Crew added milk"
    assert calls == ["before add_item {'item': 'MILK'}"]
    assert output.session_state == {"items": ["milk"]}


async def test_agentic_state_on_a_team_applies_a_merge_patch() -> None:
    """``enable_agentic_state`` gives the leader update_session_state (null deletes)."""
    leader = ScriptedModel(
        [tool_call("update_session_state", updates={"a": {"b": 2}, "gone": None}), "ok"]
    )
    team = Team(
        members=[],
        model=leader,
        enable_agentic_state=True,
        session_state={"a": {"c": 1}, "gone": True},
    )
    output = await team.arun("patch")
    assert output.session_state == {"a": {"c": 1, "b": 2}}


async def test_unknown_member_is_reported_to_the_leader() -> None:
    """Delegating to a member that does not exist is an error result naming the members."""
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="ghost", task="boo"), "Oops."]
    )
    team = Team(members=[member("Cook")], model=leader)
    output = await team.arun("go")
    assert output.tools[0].error
    assert "no team member 'ghost'; members: cook" in output.tools[0].result


async def test_member_defaults_fill_the_team_template() -> None:
    """Members' own session_state defaults are part of the team's template; the team wins."""
    team = Team(
        members=[
            member("A", session_state={"x": 1, "shared": {"a": 1}}),
            member("B", session_state={"y": 2, "shared": {"b": 2}}),
        ],
        session_state={"x": 10},
    )
    assert await team.aget_session_state() == {"x": 10, "y": 2, "shared": {"a": 1, "b": 2}}


async def test_metrics_include_member_runs() -> None:
    """A team run's model-call count includes its members' calls."""
    cook = member("Cook", ["Cooked."])
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="cook", task="cook"), "Done."]
    )
    output = await Team(members=[cook], model=leader).arun("dinner")
    assert output.metrics.model_calls == 3


async def test_arun_tool_runs_a_team_tool_without_a_model() -> None:
    """``arun_tool`` runs a team tool directly and persists its change."""
    team = Team(members=[], name="Crew", tools=[add_item], session_state={"items": []})
    output = await team.arun_tool("add_item", {"item": "tea"}, session_id="s", user_id="u")
    assert output.content == "Crew added tea"
    assert await team.aget_session_state("s") == {"items": ["tea"]}


async def test_arun_tool_rejects_unknown_tools_and_bad_arguments() -> None:
    """Unknown tools (delegation included) and bad arguments fail before the session."""
    team = Team(members=[member("Cook")], tools=[add_item], session_state={"items": []})
    with pytest.raises(UnknownToolError):
        await team.arun_tool("delegate_task_to_member", {"member_id": "cook", "task": "x"})
    with pytest.raises(ToolArgumentError):
        await team.arun_tool("add_item", {"item": ["not", "text"]})
    assert await team.db.alist_sessions() == []


def test_construction_errors_are_clear() -> None:
    """Non-members, duplicate member ids and a clashing tool name are refused."""
    with pytest.raises(TypeError, match="not a team member"):
        Team(members=["cook"])
    with pytest.raises(ValueError, match="two team members have the id 'cook'"):
        Team(members=[member("Cook"), member("cook")])

    def delegate_task_to_member(task: str) -> str:
        """Clashes with the delegation tool."""
        return task

    with pytest.raises(ValueError, match="reserved"):
        Team(members=[], tools=[delegate_task_to_member])


def test_print_response_streams_the_leader_answer(capsys: pytest.CaptureFixture[str]) -> None:
    """``print_response(stream=True)`` prints the leader's answer and returns the output."""
    team = Team(members=[], model=ScriptedModel(["Hello from the team."]))
    output = team.print_response("hi", stream=True)
    assert output.content == "Hello from the team."
    assert "Hello from the team." in capsys.readouterr().out


async def test_member_tools_receive_their_agent_and_the_team() -> None:
    """A member's tool is given its own agent and the team by parameter name."""
    seen: list[tuple[str | None, str | None]] = []

    def whoami(agent: Agent, team: Team) -> str:
        """Report who is calling."""
        seen.append((agent.name, team.name))
        return "ok"

    cook = member("Cook", [tool_call("whoami"), "Told."], tools=[whoami])
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="cook", task="who?"), "Done."]
    )
    await Team(members=[cook], model=leader, name="Kitchen").arun("go")
    assert seen == [("Cook", "Kitchen")]


async def test_a_member_that_fails_is_an_error_for_the_leader() -> None:
    """A member that cannot run is reported to the leader; the team run still answers.

    (A member without a model uses the team's: tests/core/team/test_model_inheritance.py.)
    """
    idle = Agent(name="Idle", model=ScriptedModel([]))  # its script is already used up
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="idle", task="work"), "Could not."]
    )
    output = await Team(members=[idle], model=leader, session_state={"n": 1}).arun("go")
    assert output.tools[0].error and "script" in output.tools[0].result.lower()
    assert (output.content, output.session_state) == ("Could not.", {"n": 1})
