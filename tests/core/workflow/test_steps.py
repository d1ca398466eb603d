"""Function, agent and team steps on one workflow session; persistence after each step."""

from __future__ import annotations

from typing import Any

import pytest
from typing_extensions import TypedDict

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.db.values import StateValueError
from core.exceptions import StateSchemaError, UnknownToolError
from core.run import RunContext
from core.team import Team
from core.testing import ScriptedModel, tool_call
from core.workflow import Step, StepInput, StepOutput, Workflow


class Counter(TypedDict):
    """A typed workflow state: one count."""

    visits: int


def add_item(run_context: RunContext, item: str) -> str:
    """Add an item.

    Args:
        item: The item.
    """
    run_context.session_state["items"].append(item)
    return f"added {item}"


async def test_function_steps_get_injected_values_and_chain_content() -> None:
    """Sync and async function steps see step_input, run_context and session_state."""
    seen: dict[str, Any] = {}

    def first(step_input: StepInput, session_state: dict[str, Any]) -> str:
        session_state["visits"] = session_state.get("visits", 0) + 1
        return f"first saw {step_input.input}"

    async def second(inp: StepInput, run_context: RunContext) -> StepOutput:
        seen["previous"] = inp.previous_step_content
        seen["by_name"] = inp.get_step_content("first")
        seen["ids"] = (run_context.session_id, run_context.user_id)
        return StepOutput(content={"visits": run_context.session_state["visits"]})

    workflow = Workflow("W", steps=[first, Step("second", executor=second)])
    output = await workflow.arun("hello", session_id="s", user_id="u")

    assert seen == {"previous": "first saw hello", "by_name": "first saw hello", "ids": ("s", "u")}
    assert output.content == {"visits": 1}  # kept as the step returned it, as in Agno
    assert output.get_content_as_string() == '{"visits": 1}'
    assert list(output.step_outputs) == ["first", "second"]
    assert output.step_outputs["second"].content == {"visits": 1}
    assert (await workflow.arun("again", session_id="s")).content == {"visits": 2}


async def test_state_is_saved_after_each_step() -> None:
    """A later step failing keeps what earlier steps saved, and undoes its own change."""
    db = InMemoryDb()

    def good(session_state: dict[str, Any]) -> None:
        session_state["good"] = True

    def bad(session_state: dict[str, Any]) -> None:
        session_state["bad"] = True
        raise RuntimeError("step failed")

    workflow = Workflow("W", db=db, steps=[good, bad], session_id="s")
    with pytest.raises(RuntimeError, match="step failed"):
        await workflow.arun("go")
    assert await workflow.aget_session_state() == {"good": True}
    history = await db.ahistory("s")  # the failed step's change was never saved
    assert {str(entry.state) for entry in history} == {str({"good": True})}
    record = await db.aload("s")
    assert record is not None and '"status":"error"' in record.data  # the run is on record


async def test_non_json_value_from_a_step_is_a_clear_error_and_not_saved() -> None:
    """A step storing a value that is not JSON fails naming the key; nothing of it is kept."""

    def sneaky(session_state: dict[str, Any]) -> None:
        session_state["ok"] = 1
        session_state["when"] = object()

    workflow = Workflow("W", steps=[sneaky], session_state={"start": 0})
    with pytest.raises(StateValueError, match="'when'"):
        await workflow.arun("go")
    assert await workflow.aget_session_state() == {"start": 0}


async def test_reassigned_run_context_state_is_kept() -> None:
    """A function assigning a new dict to run_context.session_state (as seed 003 does) sticks."""

    def reset(run_context: RunContext) -> str:
        run_context.session_state = {"fresh": True}
        return "reset"

    workflow = Workflow("W", steps=[reset], session_state={"old": 1})
    output = await workflow.arun("go")
    assert output.session_state == {"fresh": True}
    assert await workflow.aget_session_state() == {"fresh": True}


async def test_stop_ends_the_workflow_early() -> None:
    """A step returning StepOutput(stop=True) skips the remaining steps."""

    def halt() -> StepOutput:
        return StepOutput(content="halted", stop=True)

    def never(session_state: dict[str, Any]) -> None:
        session_state["ran"] = True

    output = await Workflow("W", steps=[halt, never]).arun("go")
    assert output.content == "halted"
    assert list(output.step_outputs) == ["halt"]


async def test_agent_and_team_steps_share_the_workflow_state() -> None:
    """An agent step and a team step (with its member) write one workflow session."""
    agent = Agent(
        model=ScriptedModel([tool_call("add_item", item="tea"), "Added tea."]),
        name="Adder",
        tools=[add_item],
    )
    stocker = Agent(
        model=ScriptedModel([tool_call("add_item", item="jam"), "Added jam."]),
        name="Stocker",
        tools=[add_item],
    )
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="stocker", task="add jam"), "Team done."]
    )
    team = Team(members=[stocker], model=leader, name="Crew")
    db = InMemoryDb()
    workflow = Workflow(
        "W",
        db=db,
        steps=[Step("solo", agent=agent), Step("crew", team=team)],
        session_state={"items": []},
    )

    output = await workflow.arun("stock up", session_id="s")

    assert output.session_state == {"items": ["tea", "jam"]}
    assert output.content == "Team done."
    # Agno's chaining: a step after another is asked the previous step's content
    assert leader.requests[0].messages[-1].content == "Added tea."
    assert [(r.kind, r.owner_id) for r in await db.alist_sessions()] == [("workflow", workflow.id)]
    assert [t.tool_name for t in output.tools] == ["add_item", "delegate_task_to_member"]


async def test_looks_like_an_agent_to_the_chat_router() -> None:
    """id, name, description, db, functions, arun and arun_tool have the agent shape."""
    workflow = Workflow("Shopping", steps=[lambda: "hi"], description="Lists")
    assert (workflow.id, workflow.name, workflow.description) == ("shopping", "Shopping", "Lists")
    assert workflow.functions == {}
    output = await workflow.arun("hello", session_id="chat:1", user_id="chat:u")
    assert (output.content, output.session_id, output.user_id) == ("hi", "chat:1", "chat:u")
    with pytest.raises(UnknownToolError):
        await workflow.arun_tool("add_item", {"item": "x"}, session_id="chat:1")


def test_sync_run_print_response_and_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """``run``, ``print_response(input=...)`` and streaming work from sync code."""
    agent = Agent(model=ScriptedModel(["streamed answer"] * 2), name="Talker")
    workflow = Workflow("W", steps=[agent])
    assert workflow.run("hi").content == "streamed answer"
    printed = workflow.print_response(input="hi", stream=True)
    assert printed.content == "streamed answer"
    assert "streamed answer" in capsys.readouterr().out


def test_bad_definitions_are_refused() -> None:
    """Empty workflows, steps with no or two runners, and non-steps are clear errors."""
    with pytest.raises(ValueError, match="at least one step"):
        Workflow("W", steps=[])
    with pytest.raises(ValueError, match="exactly one"):
        Step("s")
    with pytest.raises(ValueError, match="exactly one"):
        Step("s", executor=print, agent=Agent())
    with pytest.raises(TypeError, match="not a workflow step"):
        Workflow("W", steps=[42])


async def test_a_function_step_that_breaks_the_schema_fails_and_stores_nothing() -> None:
    """A function step's state is checked against the workflow's schema before its save."""

    def good(session_state: dict[str, Any]) -> str:
        session_state["visits"] += 1
        return "counted"

    def bad(session_state: dict[str, Any]) -> str:
        session_state["visits"] = "many"
        return "broke it"

    db = InMemoryDb()
    workflow = Workflow(
        steps=[Step("good", executor=good), Step("bad", executor=bad)],
        db=db,
        session_state={"visits": 0},
        session_state_schema=Counter,
    )
    with pytest.raises(StateSchemaError, match="visits"):
        await workflow.arun("go", session_id="w")
    stored = await db.aload("w")
    assert stored is not None and stored.state == {"visits": 1}


async def test_a_step_after_one_without_content_is_asked_the_workflow_input() -> None:
    """Agno's rule: the previous content when there is some, else the workflow input."""
    agent = Agent(model=ScriptedModel(["Answered."]), name="Answerer")
    workflow = Workflow("W", steps=[Step("quiet", executor=lambda: None), Step("a", agent=agent)])

    await workflow.arun("what is on the list?", session_id="s")

    assert agent.model.requests[0].messages[-1].content == "what is on the list?"


async def test_a_pydantic_step_content_reaches_the_next_agent_as_json() -> None:
    """A structured output (a pydantic model) is passed on as its JSON, as Agno does."""
    from pydantic import BaseModel

    class Application(BaseModel):
        company: str
        notes: str | None = None

    agent = Agent(model=ScriptedModel(["Saved."]), name="Saver")
    workflow = Workflow(
        "W",
        steps=[
            Step("extract", executor=lambda: Application(company="Acme")),
            Step("a", agent=agent),
        ],
    )

    await workflow.arun("Applied at Acme", session_id="s")

    assert agent.model.requests[0].messages[-1].content == '{\n  "company": "Acme"\n}'
