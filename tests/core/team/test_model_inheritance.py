"""Members without a model use their team's (Agno's model inheritance), not the
environment's default; ``initialize_team()`` applies it before any run."""

from __future__ import annotations

from core.agent import Agent
from core.team import Team
from core.testing import ScriptedModel, tool_call


def _teams() -> tuple[Team, Agent, Agent, Agent]:
    plain = Agent(name="Researcher")
    own = Agent(name="Editor", model=ScriptedModel(["edited"]))
    analyst = Agent(name="Analyst")
    sub_model = ScriptedModel(["analysed"])
    sub_team = Team(name="Analysis", model=sub_model, members=[analyst])
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="researcher", task="dig"), "done"]
    )
    team = Team(name="Content", model=leader, members=[plain, own, sub_team])
    return team, plain, own, analyst


def test_initialize_team_gives_model_less_members_the_teams_model() -> None:
    team, plain, own, analyst = _teams()

    team.initialize_team()

    assert plain.model is team.model
    assert isinstance(own.model, ScriptedModel) and own.model is not team.model
    assert analyst.model is team.members[2].model  # its own team's, not the top one's


def test_a_run_uses_the_teams_model_for_a_model_less_member(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    researcher = Agent(name="Researcher")
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="researcher", task="dig"), "found", "done"]
    )
    team = Team(name="Content", model=leader, members=[researcher])

    output = team.run("research AI")

    assert output.content == "done"
    assert researcher.model is leader
    assert [r.messages[-1].content for r in leader.requests][1] == "dig"
