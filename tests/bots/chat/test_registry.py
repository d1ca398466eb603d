"""The typed agent registry: one case-insensitive lookup for all of bots/."""

from __future__ import annotations

import pytest

from bots.app.service import chat_service
from bots.chat.registry import AgentRegistry
from bots.chat.service import ConfigError
from bots.settings import Settings
from core.agent import Agent
from core.team import Team


def _agent(agent_id: str) -> Agent:
    return Agent(id=agent_id, name=agent_id)


def test_lookup_ignores_case_and_keeps_the_registered_id() -> None:
    """`TaskBoard`, `taskboard` and `TASKBOARD` all name the entry registered as `Taskboard`."""
    board = _agent("board")
    registry = AgentRegistry({"Taskboard": board})
    assert registry.get("TASKBOARD") is board and registry["taskboard"] is board
    assert registry.id_of("taskBOARD") == "Taskboard"
    assert "TaskBoard" in registry and list(registry) == ["Taskboard"]
    assert registry.get("nope") is None and registry.id_of("nope") is None
    with pytest.raises(KeyError):
        registry["nope"]


def test_teams_and_agents_share_one_registry() -> None:
    """Agents and teams are both entries, in registration order."""
    board, team = _agent("board"), Team(members=[_agent("m")], name="crew")
    registry = AgentRegistry({"board": board, "crew": team})
    assert dict(registry.items()) == {"board": board, "crew": team}
    assert len(registry) == 2


def test_ids_that_differ_only_in_case_are_rejected() -> None:
    """Two ids one lookup cannot tell apart are a configuration error, not a silent shadow."""
    with pytest.raises(ValueError, match="'shop' and 'Shop'"):
        AgentRegistry({"shop": _agent("a"), "Shop": _agent("b")})


def test_chat_service_refuses_ids_that_differ_only_in_case() -> None:
    """The service fails at startup instead of routing `/shop` to one of two agents."""
    with pytest.raises(ConfigError, match="differ only in case"):
        chat_service(
            {"shop": _agent("a"), "Shop": _agent("b")},
            settings=Settings(statebot_default_agent="shop"),
        )


def test_service_agents_is_the_registry() -> None:
    """Every adapter gets the same typed, case-insensitive registry from the service."""
    service = chat_service({"taskboard": _agent("t")}, settings=Settings())
    assert isinstance(service.agents, AgentRegistry)
    assert service.agents.id_of("TaskBoard") == "taskboard"
