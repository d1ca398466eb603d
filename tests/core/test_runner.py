"""The one run path: SessionOwner's shared settings and core.agent.runner's steps."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from core.agent import Agent
from core.agent.loop import ContentSink
from core.agent.owner import SessionOwner
from core.agent.run_methods import RunMethods
from core.agent.session_api import SessionStateApi
from core.db.in_memory import InMemoryDb
from core.exceptions import RunError
from core.run import RunStatus
from core.run.context import RunContext
from core.run.output import RunOutput
from core.state.session import SessionHandle
from core.team import Team
from core.testing import ScriptedModel, tool_call
from core.utils.observe import Attrs, Observer, add_observer, remove_observer
from core.workflow.types import StepInput
from core.workflow.workflow import Workflow

OWN = {"tenant": "acme", "limits": {"max": 5, "min": 1}}
RUN = {"limits": {"max": 9}, "flag": True}
#: the run's keys win, one level deep: ``limits`` is replaced, not merged
MERGED = {"tenant": "acme", "limits": {"max": 9}, "flag": True}


def _reader(seen: list[dict[str, Any]]) -> Callable[[RunContext], str]:
    def read_deps(run_context: RunContext) -> str:
        """Record the dependencies the run sees."""
        seen.append(dict(run_context.dependencies or {}))
        return "ok"

    return read_deps


def _agent(seen: list[dict[str, Any]]) -> Agent:
    model = ScriptedModel([tool_call("read_deps"), "done"])
    return Agent(model=model, tools=[_reader(seen)], dependencies=OWN)


def _team(seen: list[dict[str, Any]]) -> Team:
    model = ScriptedModel([tool_call("read_deps"), "done"])
    return Team(members=[], model=model, tools=[_reader(seen)], dependencies=OWN)


def _workflow(seen: list[dict[str, Any]]) -> Workflow:
    def step(step_input: StepInput, run_context: RunContext) -> str:
        seen.append(dict(run_context.dependencies or {}))
        return "done"

    return Workflow("deps", steps=[step], dependencies=OWN)


MAKERS: dict[str, Callable[[list[dict[str, Any]]], SessionOwner]] = {
    "agent": _agent,
    "team": _team,
    "workflow": _workflow,
}


@pytest.mark.parametrize("kind", MAKERS)
async def test_run_dependencies_merge_over_the_owners_the_same_way(kind: str) -> None:
    """Agent, Team and Workflow: run dependencies win key by key, one level deep."""
    seen: list[dict[str, Any]] = []
    owner = MAKERS[kind](seen)
    await owner.arun("go", session_id="s", dependencies=RUN)
    assert seen == [MERGED]
    assert owner.dependencies == OWN  # the template is untouched


@pytest.mark.parametrize("kind", MAKERS)
async def test_owner_dependencies_alone_without_run_dependencies(kind: str) -> None:
    """Without run dependencies a run sees the owner's own."""
    seen: list[dict[str, Any]] = []
    owner = MAKERS[kind](seen)
    await owner.arun("go", session_id="s")
    assert seen == [OWN]


@pytest.mark.parametrize("kind", MAKERS)
def test_session_state_default_is_a_private_deep_copy(kind: str) -> None:
    """The default state is copied at construction: changing the caller's dict changes nothing."""
    default: dict[str, Any] = {"items": ["a"], "nested": {"n": 1}}
    owner: SessionOwner
    if kind == "agent":
        owner = Agent(session_state=default)
    elif kind == "team":
        owner = Team(members=[], session_state=default)
    else:
        owner = Workflow(steps=[lambda step_input: "x"], session_state=default)
    default["items"].append("b")
    default["nested"]["n"] = 2
    assert owner.session_state == {"items": ["a"], "nested": {"n": 1}}
    assert owner.kind == kind and owner.id.startswith(kind)


def test_a_session_owner_must_implement_arun_on_session() -> None:
    """SessionOwner is abstract: its one requirement is explicit, not a NotImplementedError."""

    class Incomplete(SessionOwner):
        kind = "agent"
        owner_param = "agent"

    with pytest.raises(TypeError, match="arun_on_session"):
        Incomplete(  # type: ignore[abstract]
            name=None,
            id=None,
            db=None,
            session_state=None,
            session_id=None,
            user_id=None,
            dependencies=None,
            overwrite_db_session_state=False,
        )


class _Counter(RunMethods, SessionStateApi):
    """A minimal owner: counts its runs in the session state."""

    kind = "agent"
    owner_param = "agent"

    async def arun_on_session(
        self,
        handle: SessionHandle,
        input: str,
        *,
        dependencies: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
        on_content: ContentSink | None = None,
        injected: Mapping[str, Any] | None = None,
    ) -> RunOutput:
        handle.state["runs"] = handle.state.get("runs", 0) + 1
        if input == "fail":
            raise ValueError("failed on purpose")
        return RunOutput(handle.run_id, handle.session_id, handle.user_id, content=input)


def _counter(db: InMemoryDb) -> _Counter:
    return _Counter(
        name="counter",
        id=None,
        db=db,
        session_state={"runs": 0},
        session_id="default",
        user_id="ann",
        dependencies=None,
        overwrite_db_session_state=False,
    )


async def test_a_new_owner_gets_the_whole_run_path() -> None:
    """Implementing arun_on_session is enough: the run is saved, recorded, returned."""
    db = InMemoryDb()
    owner = _counter(db)
    output = await owner.arun("hello")
    assert output.content == "hello" and output.session_state == {"runs": 1}
    session = await owner.aget_session()
    assert session is not None and session.session_data == {"session_state": {"runs": 1}}
    assert [(r.input and r.input.input_content, r.status, r.user_id) for r in session.runs] == [
        ("hello", RunStatus.completed, "ann")
    ]


async def test_a_failed_run_is_recorded_and_nothing_after_its_error_is_lost() -> None:
    """A run that raises is recorded as an error; the error reaches the caller."""
    owner = _counter(InMemoryDb())
    await owner.arun("first")
    with pytest.raises(ValueError, match="on purpose"):
        await owner.arun("fail")
    session = await owner.aget_session()
    assert session is not None
    assert [(r.input and r.input.input_content, r.status) for r in session.runs] == [
        ("first", RunStatus.completed),
        ("fail", RunStatus.error),
    ]


async def test_resuming_a_run_that_never_paused_creates_nothing() -> None:
    """continue_run of an unknown run: RunError, and no session is created by the attempt."""
    owner = _counter(InMemoryDb())
    with pytest.raises(RunError, match="not waiting for a confirmation"):
        await owner.acontinue_run("no-such-run", session_id="fresh")
    assert await owner.db.aload("fresh") is None


async def test_direct_tool_calls_model_runs_and_resumes_are_observed_as_runs() -> None:
    """Every kind of run goes through the runner, so each is observed as one ``run``."""
    ended: list[tuple[str, str]] = []

    class Recorder(Observer):
        __slots__ = ()

        def end(self, event: str, attrs: Attrs, token: Any, seconds: float, error: bool) -> None:
            if event == "run":
                ended.append((str(attrs["owner_id"]), str(attrs["kind"])))

    def add(session_state: dict[str, Any], item: str) -> str:
        """Add an item."""
        session_state.setdefault("items", []).append(item)
        return "added"

    agent = Agent(id="obs", model=ScriptedModel(["hi"]), tools=[add])
    recorder = Recorder()
    add_observer(recorder)
    try:
        await agent.arun("hello", session_id="s")
        await agent.arun_tool("add", {"item": "milk"}, session_id="s")
    finally:
        remove_observer(recorder)
    assert ended == [("obs", "agent"), ("obs", "agent")]
    assert await agent.aget_session_state("s") == {"items": ["milk"]}


async def test_team_members_see_the_team_runs_dependencies_over_their_own() -> None:
    """A delegated member merges the team run's dependencies over its own, the one rule."""
    seen: list[dict[str, Any]] = []
    member = Agent(
        model=ScriptedModel([tool_call("read_deps"), "read"]),
        name="Member",
        tools=[_reader(seen)],
        dependencies={"tenant": "member-default", "region": "eu"},
    )
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="member", task="read"), "done"]
    )
    team = Team(members=[member], model=leader, dependencies={"tenant": "team"})
    await team.arun("go", session_id="s", dependencies={"flag": True})
    assert seen == [{"tenant": "team", "region": "eu", "flag": True}]


async def test_workflow_agent_steps_see_the_workflow_runs_dependencies_over_their_own() -> None:
    """An agent step merges the workflow run's dependencies over its own, the one rule."""
    seen: list[dict[str, Any]] = []
    agent = Agent(
        model=ScriptedModel([tool_call("read_deps"), "read"]),
        tools=[_reader(seen)],
        dependencies={"tenant": "agent-default", "region": "eu"},
    )
    workflow = Workflow(steps=[agent], dependencies={"tenant": "workflow"})
    await workflow.arun("go", session_id="s")
    assert seen == [{"tenant": "workflow", "region": "eu"}]
