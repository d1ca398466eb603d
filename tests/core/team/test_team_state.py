"""Seed 001's team note: members share the team's one session state."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.db.sqlite import SqliteDb
from core.team import Team
from core.testing import ScriptedModel, tool_call


def edit_state(session_state: dict[str, Any]) -> str:
    """Add, change and delete keys of the shared state."""
    session_state["added"] = ["new"]
    session_state["count"] += 1
    del session_state["old"]
    return "edited"


def show_state(session_state: dict[str, Any]) -> str:
    """Report the shared state as this member sees it."""
    shown = {k: v for k, v in sorted(session_state.items()) if not k.startswith("current_")}
    return json.dumps(shown)


def make_team(db: Any) -> tuple[Team, ScriptedModel, ScriptedModel, ScriptedModel]:
    """A leader that sends the editor first, then the reader."""
    editor_model = ScriptedModel([tool_call("edit_state"), "Edited the state."])
    reader_model = ScriptedModel([tool_call("show_state"), "Shown."])
    editor = Agent(model=editor_model, name="Editor", tools=[edit_state], description="Edits")
    reader = Agent(model=reader_model, name="Reader", tools=[show_state], description="Reads")
    leader = ScriptedModel(
        [
            tool_call("delegate_task_to_member", member_id="editor", task="edit it"),
            tool_call("delegate_task_to_member", member_id="Reader", task="show it"),
            "All done.",
        ]
    )
    team = Team(
        members=[editor, reader],
        model=leader,
        db=db,
        name="Keepers",
        session_state={"count": 1, "old": "x", "keep": True},
        instructions="The count is {count}.",
        add_session_state_to_context=True,
    )
    return team, leader, editor_model, reader_model


@pytest.mark.parametrize("store", ["in_memory", "sqlite"])
async def test_member_change_is_seen_by_leader_and_later_member_and_persisted(
    store: str, tmp_path: Any
) -> None:
    """A member's add/change/delete reaches the leader's next prompt, the next member, the db."""
    db = InMemoryDb() if store == "in_memory" else SqliteDb(db_file=tmp_path / "team.db")
    team, leader, _, reader_model = make_team(db)

    output = await team.arun("tidy up", session_id="s1", user_id="u1")

    expected = {"count": 2, "added": ["new"], "keep": True}
    assert output.content == "All done."
    assert output.session_state == expected
    assert await team.aget_session_state("s1") == expected
    first, second = leader.requests[0].system, leader.requests[1].system
    assert "The count is 1." in first and '"old": "x"' in first
    assert "The count is 2." in second and '"old"' not in second and '"added": ["new"]' in second
    reader_saw = reader_model.requests[1].messages[-1].content
    assert reader_saw == json.dumps(dict(sorted(expected.items())))
    sessions = await db.alist_sessions()
    assert [(s.session_id, s.kind, s.owner_id) for s in sessions] == [("s1", "team", team.id)]


async def test_next_run_continues_from_the_stored_team_state() -> None:
    """A second run of the session starts from what the members saved in the first."""
    team, leader, _, reader_model = make_team(InMemoryDb())
    await team.arun("tidy up", session_id="s1")
    leader.extend([tool_call("delegate_task_to_member", member_id="reader", task="again"), "ok"])
    reader_model.extend([tool_call("show_state"), "Shown again."])

    output = await team.arun("show me", session_id="s1")

    stored = {"added": ["new"], "count": 2, "keep": True}
    assert reader_model.requests[-1].messages[-1].content == json.dumps(stored)
    assert output.session_state == stored


async def test_failing_member_tool_changes_nothing() -> None:
    """A member tool that raises is undone; the leader still finishes and nothing is lost."""

    def break_state(session_state: dict[str, Any]) -> str:
        """Change the state, then fail."""
        session_state["count"] = 99
        raise RuntimeError("disk on fire")

    breaker_model = ScriptedModel([tool_call("break_state"), "It failed."])
    breaker = Agent(model=breaker_model, name="Breaker", tools=[break_state])
    leader = ScriptedModel(
        [tool_call("delegate_task_to_member", member_id="breaker", task="go"), "Sorry."]
    )
    team = Team(members=[breaker], model=leader, session_state={"count": 1})

    output = await team.arun("go")

    assert "disk on fire" in (breaker_model.requests[1].messages[-1].content or "")
    assert output.tools[0].result == "It failed."
    assert output.session_state == {"count": 1}
    assert await team.aget_session_state() == {"count": 1}


def test_sync_run_and_get_session_state() -> None:
    """``run`` and ``get_session_state`` work from sync code on the team's default session."""
    team, _, _, _ = make_team(InMemoryDb())
    assert team.run("tidy up").content == "All done."
    assert team.get_session_state() == {"count": 2, "added": ["new"], "keep": True}
