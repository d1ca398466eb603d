"""Workflow.deep_copy(update=...): an isolated copy sharing only stores, models and budgets."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.governance.budgets.model import Budget
from core.models.openai import OpenAIChat
from core.team import Team
from core.testing import ScriptedModel
from core.workflow import Condition, Step, Workflow


def note(session_state: dict[str, Any], text: str) -> str:
    """Note a text.

    Args:
        text: What to note.
    """
    session_state.setdefault("notes", []).append(text)
    return "noted"


def editorial(db: SqliteDb, model: Any) -> Workflow:
    """A workflow with an agent step, a team step and a condition, like Agno's example."""
    writer = Agent(name="Writer", model=model, db=db, tools=[note])
    team = Team(name="Desk", members=[Agent(name="Checker", model=model)], model=model)
    return Workflow(
        name="Base Editorial Workflow",
        description="Produces editorial outlines.",
        steps=[
            Step(name="Draft Outline", agent=writer),
            Condition(evaluator=True, steps=[Step(name="Check", team=team)]),
        ],
        db=db,
        session_id="base-session",
        session_state={"audience": "engineers", "tone": "concise"},
        metadata={"owner": "editorial"},
        budget=Budget(tokens_per_session=100_000),
        stream_executor_events=False,
    )


def test_copy_is_isolated_and_takes_the_update(tmp_path: Any, monkeypatch: Any) -> None:
    """Changing the copy's state, metadata, steps and agents leaves the original as it was."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    db = SqliteDb(db_file=str(tmp_path / "copy.db"))
    model = OpenAIChat(id="gpt-4o")  # holds an HTTP client: shared, never deep-copied
    base = editorial(db, model)
    copied = base.deep_copy(
        update={"name": "Copied Editorial Workflow", "session_id": "copied-session"}
    )
    copied.session_state["audience"] = "executives"
    assert copied.metadata is not None
    copied.metadata["owner"] = "growth"
    copied.steps[0].name = "Draft Outline Copy"
    copied_writer = copied.steps[0].agent
    assert isinstance(copied_writer, Agent)
    copied_writer.name = "Writer Copy"

    assert (base.name, base.session_id) == ("Base Editorial Workflow", "base-session")
    assert base.session_state == {"audience": "engineers", "tone": "concise"}
    assert base.metadata == {"owner": "editorial"}
    assert base.steps[0].name == "Draft Outline"
    assert base.steps[0].agent is not copied_writer and base.steps[0].agent.name == "Writer"
    assert (copied.name, copied.session_id) == ("Copied Editorial Workflow", "copied-session")
    assert copied.session_state == {"audience": "executives", "tone": "concise"}
    assert copied.description == "Produces editorial outlines."
    assert copied.stream_executor_events is False
    # a derived id follows the new name; stores, models and budgets are shared
    assert (base.id, copied.id) == ("base-editorial-workflow", "copied-editorial-workflow")
    assert copied.db is db and copied_writer.db is db and copied_writer.model is model
    assert copied.budget is base.budget


def test_an_explicit_id_is_kept_and_update_may_replace_it(tmp_path: Any) -> None:
    """An id the code gave is copied; update={"id": ...} sets another."""
    base = Workflow(name="W", id="fixed", steps=[Step("s", executor=lambda: "x")])
    assert base.deep_copy().id == "fixed"
    assert base.deep_copy(update={"name": "Other"}).id == "fixed"
    assert base.deep_copy(update={"id": "other"}).id == "other"


async def test_the_copy_runs_on_its_own_session(tmp_path: Any) -> None:
    """The copy runs with the copied template; the original's session is not touched."""
    db = SqliteDb(db_file=str(tmp_path / "run.db"))
    model = ScriptedModel(["Outline.", "Checked."])
    base = editorial(db, model)
    copied = base.deep_copy(update={"session_id": "copied-session"})
    copied.session_state["audience"] = "executives"
    await copied.arun("Write about state")
    assert await copied.aget_session_state(session_id="copied-session") == {
        "audience": "executives",
        "tone": "concise",
    }
    assert await db.aload("base-session") is None


def test_an_unknown_field_in_update_is_refused() -> None:
    """update names the constructor's arguments; anything else is a TypeError, not ignored."""
    base = Workflow(name="W", steps=[Step("s", executor=lambda: "x")])
    with pytest.raises(TypeError, match="no_such_field"):
        base.deep_copy(update={"no_such_field": 1})


def test_a_method_step_keeps_its_object() -> None:
    """A step's function is kept by reference, as in Agno: a bound method's object
    (here holding a lock, which cannot be copied) is the original's."""
    import threading

    class Counter:
        def __init__(self) -> None:
            self.lock = threading.Lock()

        def step(self) -> str:
            return "counted"

    counter = Counter()
    base = Workflow(name="W", steps=[Step("count", executor=counter.step)])
    copied = base.deep_copy()
    assert copied.steps[0] is not base.steps[0]
    assert copied.steps[0].executor == counter.step
    assert copied.run("go").content == "counted"
