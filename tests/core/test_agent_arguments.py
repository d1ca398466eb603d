"""Agno constructor arguments on Agent and Team: real attributes, Agno's defaults."""

from __future__ import annotations

import pytest

from core.agent import Agent
from core.team import Team
from core.testing import ScriptedModel


def test_agent_accepts_agno_arguments_with_agno_defaults() -> None:
    """History, role, dependencies-in-context and telemetry arguments are attributes."""
    default = Agent()
    assert (default.add_history_to_context, default.num_history_runs) == (False, None)
    assert (default.read_chat_history, default.add_dependencies_to_context) == (False, False)
    assert (default.role, default.telemetry) == (None, True)
    agent = Agent(
        add_history_to_context=True,
        num_history_runs=5,
        read_chat_history=True,
        role="Keeps the shopping list",
        add_dependencies_to_context=True,
        telemetry=False,
    )
    assert (agent.add_history_to_context, agent.num_history_runs) == (True, 5)
    assert agent.read_chat_history and agent.add_dependencies_to_context
    assert (agent.role, agent.telemetry) == ("Keeps the shopping list", False)


@pytest.mark.parametrize("value", [-1, 1.5, "3", True])
def test_num_history_runs_must_be_a_count(value: object) -> None:
    """A negative or non-integer ``num_history_runs`` is refused with the value named."""
    with pytest.raises(ValueError, match="num_history_runs"):
        Agent(num_history_runs=value)  # type: ignore[arg-type]


def test_unknown_keyword_still_raises_naming_it() -> None:
    """Unknown keyword arguments raise TypeError naming the argument."""
    with pytest.raises(TypeError, match="no_such_option"):
        Agent(no_such_option=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="no_such_option"):
        Team(members=[], no_such_option=1)  # type: ignore[call-arg]


def test_team_accepts_agno_arguments() -> None:
    """Team takes mode, role, memory, history and telemetry arguments as attributes."""
    team = Team(
        members=[],
        mode="route",
        role="Answers shopping questions",
        update_memory_on_run=True,
        telemetry=False,
        add_history_to_context=True,
        num_history_runs=2,
        show_members_responses=True,
        share_member_interactions=True,
    )
    assert (team.mode, team.respond_directly, team.delegate_to_all_members) == (
        "route",
        True,
        False,
    )
    assert (team.role, team.telemetry, team.num_history_runs) == (
        "Answers shopping questions",
        False,
        2,
    )
    assert team.update_memory_on_run and team.show_members_responses


def test_update_memory_on_run_gives_the_leader_memory_tools() -> None:
    """``update_memory_on_run=True`` is honoured: the leader can record user facts."""
    assert "remember_user_fact" in Team(members=[], update_memory_on_run=True).functions
    assert "remember_user_fact" not in Team(members=[]).functions


async def test_member_role_is_shown_to_the_leader() -> None:
    """A member's ``role`` appears next to it in the leader's member list."""
    leader = ScriptedModel(["ok"])
    member = Agent(model=ScriptedModel([]), name="Buyer", role="Buys groceries")
    await Team(members=[member], model=leader).arun("hi")
    assert "- id: buyer, name: Buyer — Buys groceries" in leader.requests[0].system


def test_team_mode_booleans_and_refusals() -> None:
    """Agno's booleans pick the mode; 'broadcast' is collaborate; unknown or 'tasks' refused."""
    assert Team(members=[], respond_directly=True).mode == "route"
    assert Team(members=[], delegate_to_all_members=True).mode == "collaborate"
    assert Team(members=[], mode="broadcast").mode == "collaborate"
    assert Team(members=[]).mode == "coordinate"
    with pytest.raises(ValueError, match="not supported"):
        Team(members=[], mode="tasks")
    with pytest.raises(ValueError, match="unknown team mode 'vote'"):
        Team(members=[], mode="vote")
