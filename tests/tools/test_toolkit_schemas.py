"""The ready toolkits' schemas: everything their tools write fits; what does not fit is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.state.schema import StateSchema
from core.testing import ScriptedModel, tool_call
from tools import customers, shopping, taskboard
from tools.customers.schema import CustomerState
from tools.shopping import workflow as shopping_workflow
from tools.shopping.schema import ShoppingState
from tools.taskboard import timed
from tools.taskboard.index import index_id, note
from tools.taskboard.schema import TaskboardState

SESSION = "slack:T1:C1:100.1"
ANA = "slack:T1:U1"
NOW = 1795428000.0  # Monday 23 November 2026, 10:00 UTC


async def call(agent: Agent, tool: str, /, **arguments: object) -> str:
    output = await agent.arun_tool(tool, arguments, session_id=SESSION, user_id=ANA)
    assert not output.tools or not output.tools[0].error, output.content
    return output.get_content_as_string()


def fits(model: type[Any], state: dict[str, Any]) -> None:
    """The whole state fits the model (strict), as a migration would check it."""
    StateSchema(model).check_state(state)


async def test_taskboard_flows_fit_the_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Add with due and owner, status, reminders, removal and the owner index all fit."""
    monkeypatch.setattr(timed, "clock", lambda: NOW)
    db = SqliteDb(db_file=tmp_path / "board.db")
    agent = taskboard.create_agent(db=db)
    assert agent.state_schema is not None and agent.state_schema.model is TaskboardState
    await call(agent, "add_task", title="Ship", due="friday")
    await call(agent, "add_task", title="Plan", category="work")
    await call(agent, "update_task_status", task_id=2, status="in progress")
    await call(agent, "set_due", task_id=2, when="tomorrow 5pm")
    assert "remind you" in await call(agent, "remind", task_id=1, when="in 2 hours")
    await call(agent, "remove_task", task_id=2)
    state = await agent.aget_session_state(SESSION)
    assert state["tasks"][0]["reminders"] and state["tasks"][0]["owner"] == ANA
    fits(TaskboardState, state)
    await note(agent, ANA, "slack:T1:C2:1.1", NOW)
    fits(TaskboardState, await agent.aget_session_state(index_id(ANA)))
    await db.aclose()


async def test_taskboard_refuses_a_status_it_does_not_know() -> None:
    """A model patching a task to an unknown status (agentic state) is refused, nothing kept."""
    patch = tool_call(
        "update_session_state",
        updates={"tasks": [{"id": 1, "title": "x", "category": "general", "status": "later"}]},
    )
    agent = taskboard.create_agent(model=ScriptedModel([patch, "ok"]), enable_agentic_state=True)
    out = await agent.arun("x", session_id=SESSION)
    assert out.tools[0].error
    assert "session_state['tasks'][0]['status']" in out.tools[0].result
    assert (await agent.aget_session_state(SESSION))["tasks"] == []


async def test_shopping_agent_and_workflow_fit_the_schema() -> None:
    """add, remove, clear on the agent and the workflow's shared state fit ShoppingState."""
    agent = shopping.create_agent()
    await call(agent, "add_item", item="Milk")
    await call(agent, "add_item", item="eggs")
    await call(agent, "remove_item", item="milk")
    fits(ShoppingState, await agent.aget_session_state(SESSION))
    await call(agent, "clear_list")
    fits(ShoppingState, await agent.aget_session_state(SESSION))
    flow = shopping_workflow.create_workflow(
        model=ScriptedModel([tool_call("add_item", item="tea"), "added"])
    )
    assert flow.state_schema is not None and flow.state_schema.model is ShoppingState
    out = await flow.arun("add tea", session_id=SESSION)
    assert out.session_state == {"shopping_list": ["tea"]}


async def test_customer_hook_writes_fit_the_schema() -> None:
    """Profiles the hook creates fit CustomerState; a refused request changes nothing."""
    agent = customers.create_agent()
    create = {"customer_id": "789", "action": "create", "name": "Ana"}
    await call(agent, "process_customer_request", **create)
    fits(CustomerState, await agent.aget_session_state(SESSION))
    again = await agent.arun_tool("process_customer_request", create, session_id=SESSION)
    assert again.tools[0].error and "already exists" in str(again.content)
    assert await agent.aget_session_state(SESSION) == {
        "customer_profiles": {"789": {"name": "Ana"}}
    }
