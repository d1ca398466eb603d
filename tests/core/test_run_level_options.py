"""Agno's per-run options found missing by its cookbook: ``add_dependencies_to_context``
given to ``run`` (for that run, a team's members included) and ``yield_run_output``."""

from __future__ import annotations

from core.agent import Agent, RunOutput
from core.team import Team
from core.testing import ScriptedModel, tool_call


def _system(model: ScriptedModel, n: int = 0) -> str:
    return model.requests[n].messages[0].content or ""


def test_run_level_add_dependencies_to_context_is_for_that_run_only() -> None:
    agent = Agent(model=ScriptedModel(["a", "b"]), instructions="Help.", dependencies={"tz": "UTC"})

    agent.run("first", add_dependencies_to_context=True)
    agent.run("second")

    assert '"tz": "UTC"' in _system(agent.model, 0)
    assert "tz" not in _system(agent.model, 1)


def test_run_level_false_overrides_the_agents_setting() -> None:
    agent = Agent(
        model=ScriptedModel(["a"]), dependencies={"tz": "UTC"}, add_dependencies_to_context=True
    )

    agent.run("first", add_dependencies_to_context=False)

    assert all("tz" not in (m.content or "") for m in agent.model.requests[0].messages)


def test_a_teams_run_level_option_reaches_its_members() -> None:
    member = Agent(model=ScriptedModel(["member answer"]), name="Planner", instructions="Plan.")
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="planner", task="plan"), "done"]
    )
    team = Team(members=[member], model=leader)

    team.run("plan my day", dependencies={"city": "Oslo"}, add_dependencies_to_context=True)

    assert '"city": "Oslo"' in _system(leader)
    assert '"city": "Oslo"' in _system(member.model)


def test_yield_run_output_ends_the_stream_with_the_run_output() -> None:
    agent = Agent(model=ScriptedModel(["counted"]))

    items = list(agent.run("count", stream=True, yield_run_output=True))

    assert isinstance(items[-1], RunOutput) and items[-1].content == "counted"
    assert not any(isinstance(item, RunOutput) for item in items[:-1])


def test_without_yield_run_output_the_stream_has_events_only() -> None:
    agent = Agent(model=ScriptedModel(["counted"]))

    items = list(agent.run("count", stream=True))

    assert not any(isinstance(item, RunOutput) for item in items)


def _workflow_with_flags(**flags: bool) -> tuple[object, Agent]:
    from core.workflow import Step, Workflow

    writer = Agent(model=ScriptedModel(["written", "again"]), name="Writer", instructions="Write.")
    workflow = Workflow(
        "Pipeline",
        steps=[Step("write", agent=writer)],
        dependencies={"tone": "professional"},
        session_state={"articles_written": 0},
        **flags,
    )
    return workflow, writer


def test_a_workflows_context_flags_reach_its_step_agents() -> None:
    workflow, writer = _workflow_with_flags(
        add_dependencies_to_context=True, add_session_state_to_context=True
    )

    workflow.run("Write about type hints.")  # type: ignore[attr-defined]

    system = _system(writer.model)
    assert '"tone": "professional"' in system
    assert '{"articles_written": 0}' in system


def test_a_run_level_flag_wins_over_the_workflows() -> None:
    workflow, writer = _workflow_with_flags(add_dependencies_to_context=True)

    workflow.run("Write.", add_dependencies_to_context=False)  # type: ignore[attr-defined]

    assert "professional" not in _system(writer.model)
    assert "articles_written" not in _system(writer.model)


def test_run_level_add_session_state_to_context() -> None:
    agent = Agent(model=ScriptedModel(["a"]), session_state={"count": 1})

    agent.run("hi", add_session_state_to_context=True)

    assert '{"count": 1}' in _system(agent.model)
