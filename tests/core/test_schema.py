"""Typed session state: each change is checked against the schema; nothing invalid is kept."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

import pytest
from pydantic import BaseModel, ConfigDict, model_validator
from typing_extensions import TypedDict

from core.agent import Agent
from core.db.base import BaseDb
from core.exceptions import StateSchemaError
from core.state.schema import StateSchema
from core.testing import ScriptedModel, tool_call
from tests.core.schema_stores import db_fixture, services_fixture

__all__ = ["db_fixture", "services_fixture"]  # the fixtures, imported for pytest


class Task(BaseModel):
    id: int
    title: str
    status: Literal["open", "done"] = "open"


class Board(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: list[Task] = []
    next_id: int


class BoardDict(TypedDict):
    tasks: list[dict[str, Any]]
    next_id: int
    note: NotRequired[str]


def set_key(session_state: dict[str, Any], key: str, value: Any) -> str:
    """Set one top-level key.

    Args:
        key: The key.
        value: The value (any JSON).
    """
    session_state[key] = value
    return "set"


def drop_key(session_state: dict[str, Any], key: str) -> str:
    """Remove one key.

    Args:
        key: The key.
    """
    session_state.pop(key, None)
    return "dropped"


async def add_task(session_state: Board, title: str) -> str:
    """Add a task (the parameter is annotated with the schema model).

    Args:
        title: The title.
    """
    state: dict[str, Any] = session_state  # type: ignore[assignment]
    state["tasks"].append({"id": state["next_id"], "title": title, "status": "open"})
    state["next_id"] += 1
    return "added"


START = {"tasks": [], "next_id": 1}


def board_agent(db: BaseDb, model: ScriptedModel | None = None, **kw: Any) -> Agent:
    return Agent(
        model=model,
        db=db,
        tools=[set_key, drop_key, add_task],
        session_state=START,
        session_state_schema=Board,
        **kw,
    )


async def test_violation_by_a_tool_is_rolled_back_and_told_to_the_model(db: BaseDb) -> None:
    """A tool writing a wrong type gets an error naming the field; the store keeps the old state."""
    bad = tool_call("set_key", key="tasks", value=[{"id": "1", "title": "x"}])
    model = ScriptedModel([tool_call("add_task", title="a"), bad, "sorry"])
    agent = board_agent(db, model)
    out = await agent.arun("go", session_id="s")
    result = out.tools[1].result
    assert out.tools[1].error
    assert "session_state['tasks'][0]['id']" in result and "valid integer" in result
    assert "left unchanged" in result
    assert "session_state['tasks'][0]['id']" in (model.requests[2].messages[-1].content or "")
    stored = await db.aload("s")
    assert stored is not None
    assert stored.state == {"tasks": [{"id": 1, "title": "a", "status": "open"}], "next_id": 2}


async def test_direct_call_reports_the_violation_in_its_output(db: BaseDb) -> None:
    """arun_tool (slash commands) gets the same error as its output; nothing stored."""
    agent = board_agent(db)
    out = await agent.arun_tool("set_key", {"key": "next_id", "value": "7"}, session_id="s")
    assert out.tools[0].error
    assert "session_state['next_id']: Input should be a valid integer (got \"7\")" in str(
        out.content
    )
    assert (await db.aload("s")) is None or (await agent.aget_session_state("s")) == START


async def test_unknown_key_is_refused_when_the_model_forbids_extra_keys(db: BaseDb) -> None:
    """extra="forbid": a key the model does not name is refused, with the field list."""
    agent = board_agent(db)
    out = await agent.arun_tool("set_key", {"key": "taks", "value": []}, session_id="s")
    assert "session_state['taks']: is not a field of Board (fields: next_id, tasks)" in str(
        out.content
    )
    assert await agent.aget_session_state("s") == START


async def test_a_required_key_cannot_be_removed(db: BaseDb) -> None:
    """Deleting a required key is refused; an optional one may go."""
    agent = board_agent(db)
    out = await agent.arun_tool("drop_key", {"key": "next_id"}, session_id="s")
    assert "is required by the schema and cannot be removed" in str(out.content)
    out = await agent.arun_tool("drop_key", {"key": "tasks"}, session_id="s")
    assert not out.tools[0].error
    assert await agent.aget_session_state("s") == {"next_id": 1}


async def test_valid_writes_are_stored_exactly_as_written(db: BaseDb) -> None:
    """No coercion: the JSON the tool wrote is stored as is (no defaults filled in)."""
    agent = board_agent(db)
    value = [{"id": 3, "title": "t"}]  # status left out: the model has a default
    await agent.arun_tool("set_key", {"key": "tasks", "value": value}, session_id="s")
    assert await agent.aget_session_state("s") == {"tasks": value, "next_id": 1}


async def test_strict_refuses_what_lax_mode_would_coerce() -> None:
    """'3' for an int and 1 for a bool are refused, not converted."""
    schema = StateSchema(Board)
    with pytest.raises(StateSchemaError, match="valid integer"):
        schema.check_state({"tasks": [], "next_id": "3"})

    class Flags(BaseModel):
        on: bool

    with pytest.raises(StateSchemaError, match="valid boolean"):
        StateSchema(Flags).check_state({"on": 1})


async def test_typeddict_schema_checks_each_key() -> None:
    """A TypedDict works like a model: types per key, required keys, optional keys."""
    agent = Agent(tools=[set_key, drop_key], session_state=START, session_state_schema=BoardDict)
    out = await agent.arun_tool("set_key", {"key": "next_id", "value": 1.5}, session_id="s")
    assert "session_state['next_id']" in str(out.content)
    out = await agent.arun_tool("set_key", {"key": "note", "value": "hi"}, session_id="s")
    assert not out.tools[0].error
    out = await agent.arun_tool("drop_key", {"key": "tasks"}, session_id="s")
    assert "cannot be removed" in str(out.content)
    assert await agent.aget_session_state("s") == {**START, "note": "hi"}


async def test_model_with_a_model_validator_is_checked_whole() -> None:
    """A rule across keys (model_validator) is enforced: the whole state is validated."""

    class Range(BaseModel):
        low: int
        high: int

        @model_validator(mode="after")
        def ordered(self) -> Range:
            if self.low > self.high:
                raise ValueError("low must not exceed high")
            return self

    assert not StateSchema(Range).per_key
    agent = Agent(tools=[set_key], session_state={"low": 1, "high": 5}, session_state_schema=Range)
    out = await agent.arun_tool("set_key", {"key": "low", "value": 9}, session_id="s")
    assert "session_state: Value error, low must not exceed high" in str(out.content)
    assert await agent.aget_session_state("s") == {"low": 1, "high": 5}


async def test_update_session_state_refuses_a_change_that_does_not_fit(db: BaseDb) -> None:
    """update_session_state raises StateSchemaError and stores nothing."""
    agent = board_agent(db)
    await agent.aupdate_session_state({"next_id": 4})
    with pytest.raises(StateSchemaError, match=r"session_state\['next_id'\]"):
        await agent.aupdate_session_state({"next_id": None})
    assert await agent.aget_session_state() == {"tasks": [], "next_id": 4}


async def test_agentic_state_tool_is_checked_too() -> None:
    """The update_session_state tool (enable_agentic_state) is a tool call like any other."""
    patch = tool_call("update_session_state", updates={"next_id": "two"})
    agent = Agent(
        model=ScriptedModel([patch, "ok"]),
        session_state=START,
        session_state_schema=Board,
        enable_agentic_state=True,
    )
    out = await agent.arun("x", session_id="s")
    assert out.tools[0].error and "session_state['next_id']" in out.tools[0].result
    assert await agent.aget_session_state("s") == START


async def test_run_argument_that_does_not_fit_refuses_the_run(db: BaseDb) -> None:
    """session_state= that does not fit raises before anything runs or is stored."""
    model = ScriptedModel(["never"])
    agent = board_agent(db, model)
    with pytest.raises(StateSchemaError, match="run's session_state argument"):
        await agent.arun("x", session_id="s", session_state={"next_id": "x"})
    assert model.requests == []
    assert await db.aload("s") is None
    out = await agent.arun("x", session_id="s", session_state={"next_id": 9})
    assert out.session_state == {"tasks": [], "next_id": 9}


async def test_default_state_must_fit_the_schema() -> None:
    """A default session_state that does not fit is refused when the agent is built."""
    with pytest.raises(ValueError, match=r"default session_state.*next_id.*missing"):
        Agent(session_state={"tasks": []}, session_state_schema=Board)


async def test_typed_session_state_parameter_is_injected_and_hidden() -> None:
    """session_state annotated with the model gets the live tracked dict, hidden from the model."""
    agent = Agent(tools=[add_task], session_state=START, session_state_schema=Board)
    assert "session_state" not in str(agent.functions["add_task"].to_openai())
    out = await agent.arun_tool("add_task", {"title": "x"}, session_id="s")
    assert not out.tools[0].error
    assert (await agent.aget_session_state("s"))["tasks"] == [
        {"id": 1, "title": "x", "status": "open"}
    ]


async def test_transient_keys_are_not_part_of_the_schema() -> None:
    """current_session_id and friends never trip an extra="forbid" schema."""
    agent = Agent(tools=[set_key], session_state=START, session_state_schema=Board)
    out = await agent.arun_tool("set_key", {"key": "next_id", "value": 2}, session_id="s")
    assert not out.tools[0].error


def test_schema_arguments_are_checked() -> None:
    """Bad versions, migrations without a schema, and missing steps are clear errors."""
    with pytest.raises(ValueError, match="whole number >= 1"):
        StateSchema(Board, version=0)
    with pytest.raises(ValueError, match="missing: 2"):
        StateSchema(Board, version=3, migrations={3: lambda s: s})
    with pytest.raises(ValueError, match="need a session_state_schema"):
        Agent(session_state_migrations={2: lambda s: s})
    with pytest.raises(TypeError, match="BaseModel or a TypedDict"):
        StateSchema(dict)


async def test_team_members_are_checked_against_the_team_schema() -> None:
    """A member's tool call on the team's session must fit the team's schema, else rolled back."""
    from core.team import Team

    member_model = ScriptedModel([tool_call("set_key", key="next_id", value="x"), "could not"])
    member = Agent(model=member_model, name="Editor", tools=[set_key], description="Edits")
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="editor", task="edit"), "done"]
    )
    team = Team(members=[member], model=leader, session_state=START, session_state_schema=Board)
    await team.arun("go", session_id="s")
    member_result = member_model.requests[1].messages[-1].content or ""
    assert "session_state['next_id']" in member_result
    assert await team.aget_session_state("s") == START


async def test_a_run_opened_inside_a_tool_keeps_both_sessions_checked() -> None:
    """A tool that runs another typed agent on another session: each session keeps its schema."""
    inner = Agent(tools=[set_key], session_state=START, session_state_schema=Board)

    async def nested(session_state: dict[str, Any]) -> str:
        """Run the other agent, then write a bad value here."""
        out = await inner.arun_tool("set_key", {"key": "next_id", "value": "x"}, session_id="b")
        assert out.tools[0].error
        session_state["next_id"] = "also bad"
        return "done"

    outer = Agent(tools=[nested], session_state=START, session_state_schema=Board)
    out = await outer.arun_tool("nested", {}, session_id="a")
    assert "session_state['next_id']" in str(out.content)
    assert await outer.aget_session_state("a") == START
    assert await inner.aget_session_state("b") == START
