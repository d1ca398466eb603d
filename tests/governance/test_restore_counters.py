"""A restore keeps the counters a state schema declares (next_task_id), on every store."""

from __future__ import annotations

from typing import Annotated, NotRequired

from pydantic import BaseModel
from typing_extensions import TypedDict

from core.agent import Agent
from core.db.base import BaseDb
from core.governance.restore import restore_plan
from core.governance.sessions import restore_version, session_history
from core.state.schema import COUNTER, StateSchema
from tools.taskboard.agent import create_agent

SID = "slack:T1:C1"


async def _board_with_three_tasks(store: BaseDb) -> tuple[Agent, int]:
    """A Taskboard with tasks #1-#3; the version that held only #1."""
    agent = create_agent(db=store)
    for title in ("one", "two", "three"):
        await agent.arun_tool("add_task", {"title": title}, session_id=SID, user_id="slack:T1:U1")
    kept = await session_history(store, SID, limit=20)
    only_one = min(v["version"] for v in kept if len(v["state"].get("tasks", [])) == 1)
    return agent, only_one


async def test_restoring_an_old_board_keeps_next_task_id(store: BaseDb) -> None:
    """Restoring the version with task #1 brings back its tasks but not its counter: the
    next task is #4, never a number chat has already shown."""
    agent, only_one = await _board_with_three_tasks(store)
    await restore_version(store, SID, only_one, actor="slack:T1:UADMIN")
    state = await agent.aget_session_state(SID)
    assert [t["title"] for t in state["tasks"]] == ["one"]
    assert state["next_task_id"] == 4
    added = await agent.arun_tool("add_task", {"title": "four"}, session_id=SID)
    assert added.content is not None and added.content.startswith("Added task #4:")


async def test_the_plan_names_the_counter_it_keeps(store: BaseDb) -> None:
    """The restore's plan (what the console previews) is what the restore writes, and
    names each counter kept with both values."""
    _, only_one = await _board_with_three_tasks(store)
    plan = await restore_plan(store, SID, only_one)
    assert plan.kept == {"next_task_id": (2, 4)}
    assert plan.state["next_task_id"] == 4 and len(plan.state["tasks"]) == 1
    new = await restore_version(store, SID, only_one, expected_version=plan.current_version)
    assert (await session_history(store, SID, limit=1))[0]["state"] == plan.state
    assert new == plan.current_version + 1


class Counted(BaseModel):
    """A schema with one counter and one plain number."""

    seq: Annotated[int, COUNTER] = 0
    score: int = 0


async def test_only_declared_counters_are_kept_and_a_counter_may_grow(store: BaseDb) -> None:
    """A plain number goes back with the restore; a counter never goes down, and a
    restored version with a higher counter (restoring forward) keeps its own."""

    def bump(session_state: dict[str, int], score: int) -> str:
        """Count one and set the score."""
        session_state["seq"] += 1
        session_state["score"] = score
        return "ok"

    agent = Agent(
        db=store, session_state={"seq": 0, "score": 0}, session_state_schema=Counted, tools=[bump]
    )
    for score in (10, 20, 30):
        await agent.arun_tool("bump", {"score": score}, session_id=SID)
    kept = {v["state"]["score"]: v["version"] for v in await session_history(store, SID)}
    newest = kept[30]
    await restore_version(store, SID, kept[10])
    assert await agent.aget_session_state(SID) == {"seq": 3, "score": 10}
    await restore_version(store, SID, newest)
    assert await agent.aget_session_state(SID) == {"seq": 3, "score": 30}


def test_a_typed_dict_marks_counters_the_same_way() -> None:
    """COUNTER in a TypedDict (under NotRequired too) marks a counter; nothing else does."""

    class Board(TypedDict):
        seq: NotRequired[Annotated[int, COUNTER]]
        next_id: Annotated[int, COUNTER]
        score: int

    assert StateSchema(Board).counters == ("next_id", "seq")
    assert StateSchema(Counted).counters == ("seq",)
