"""Team options from Agno: TeamMode, team history to members, num_history_messages."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.team import Team, TeamMode
from core.testing import ScriptedModel, tool_call
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store


def delegate(task: str) -> Any:
    """The leader's turn that hands ``task`` to the member ``helper``."""
    return tool_call("delegate_task_to_member", member_id="helper", task=task)


def test_team_mode_has_agnos_names_at_agnos_path() -> None:
    """TeamMode imports from core.team.mode and core.team with Agno's values."""
    from core.team.mode import TeamMode as AtPath

    assert AtPath is TeamMode
    assert [m.value for m in TeamMode] == ["coordinate", "route", "broadcast", "tasks"]


def test_team_modes_map_to_what_runs_and_tasks_is_refused() -> None:
    """broadcast runs as collaborate, route as route; tasks is refused naming it."""
    helper = Agent(name="helper", model=ScriptedModel([]))
    assert Team(members=[helper], mode=TeamMode.broadcast).delegate_to_all_members
    assert Team(members=[helper], mode=TeamMode.route).respond_directly
    with pytest.raises(ValueError, match=r"'tasks'.*not supported"):
        Team(members=[helper], mode=TeamMode.tasks)
    with pytest.raises(ValueError, match="unknown team mode 'swarm'"):
        Team(members=[helper], mode="swarm")


async def test_members_get_the_teams_earlier_runs(store: BaseDb) -> None:
    """add_team_history_to_members: a delegated task is preceded by the team's last runs."""
    member_model = ScriptedModel(["m1", "m2", "m3"])
    leader = ScriptedModel(
        [delegate("t1"), "team 1", delegate("t2"), "team 2", delegate("t3"), "team 3"]
    )

    def team() -> Team:  # a new object per run, as a new process would build it
        return Team(
            members=[Agent(name="helper", model=member_model)],
            model=leader,
            db=store,
            add_team_history_to_members=True,
            num_team_history_runs=1,
        )

    for question in ("q1", "q2", "q3"):
        await team().arun(question, session_id="s")
    tasks = [[m.content for m in r.messages if m.role == "user"][-1] for r in member_model.requests]
    assert tasks[0] == "t1"
    assert tasks[2] == (
        "<team_history_context>\n[run-1]\ninput: q2\nresponse: team 2\n\n"
        "</team_history_context>\n\n\nt3"
    )


async def test_members_get_no_history_by_default() -> None:
    """Without the option, members get only their task."""
    member_model = ScriptedModel(["m1", "m2"])
    team = Team(
        members=[Agent(name="helper", model=member_model)],
        model=ScriptedModel([delegate("t1"), "one", delegate("t2"), "two"]),
    )
    await team.arun("q1", session_id="s")
    await team.arun("q2", session_id="s")
    assert [r.messages[-1].content for r in member_model.requests] == ["t1", "t2"]


async def test_num_history_messages_cuts_the_leaders_history(store: BaseDb) -> None:
    """num_history_messages: the leader gets the latest that many messages of earlier runs."""
    leader = ScriptedModel(["a1", "a2", "a3"])
    team = Team(
        members=[Agent(name="helper", model=ScriptedModel([]))],
        model=leader,
        db=store,
        add_history_to_context=True,
        num_history_messages=3,
    )
    for question in ("q1", "q2", "q3"):
        await team.arun(question, session_id="s")
    turns = [m.content for m in leader.requests[-1].messages if m.role != "system"]
    assert turns == ["a1", "q2", "a2", "q3"]


async def test_num_history_runs_wins_over_num_history_messages() -> None:
    """With both set, num_history_runs decides, as in Agno."""
    leader = ScriptedModel(["a1", "a2", "a3"])
    team = Team(
        members=[Agent(name="helper", model=ScriptedModel([]))],
        model=leader,
        add_history_to_context=True,
        num_history_runs=2,
        num_history_messages=1,
    )
    for question in ("q1", "q2", "q3"):
        await team.arun(question, session_id="s")
    turns = [m.content for m in leader.requests[-1].messages if m.role != "system"]
    assert turns == ["q1", "a1", "q2", "a2", "q3"]


async def test_cache_session_reads_the_current_session_either_way(store: BaseDb) -> None:
    """cache_session=True or False: a run always starts from what the store holds now."""

    def count(session_state: dict[str, Any]) -> str:
        """Count a visit."""
        session_state["visits"] = session_state.get("visits", 0) + 1
        return str(session_state["visits"])

    for cached in (True, False):
        team = Team(
            members=[Agent(name="helper", model=ScriptedModel([]))],
            model=ScriptedModel([tool_call("count"), "ok"] * 2),
            tools=[count],
            db=store,
            cache_session=cached,
        )
        sid = f"s-{cached}"
        await team.arun("one", session_id=sid)
        await team.aupdate_session_state({"visits": 10}, session_id=sid)
        await team.arun("two", session_id=sid)
        assert await team.aget_session_state(session_id=sid) == {"visits": 11}


def test_bad_counts_are_refused() -> None:
    """A negative num_history_messages or num_team_history_runs is a clear error."""
    helper = Agent(name="helper", model=ScriptedModel([]))
    with pytest.raises(ValueError, match="num_history_messages"):
        Team(members=[helper], num_history_messages=-1)
    with pytest.raises(ValueError, match="num_team_history_runs"):
        Team(members=[helper], num_team_history_runs=-2)
