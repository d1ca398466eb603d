"""The catalog: ready agents by id, their factories and the slash-command aliases."""

from __future__ import annotations

import importlib

import pytest

from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from core.workflow import Workflow
from tools.catalog import AGENT_FACTORIES, COMMAND_ALIASES, create_agents, resolve_command


def test_create_agents_builds_one_agent_per_id_on_shared_model_and_db() -> None:
    """create_agents returns the three agents and the shopping workflow, on one model and db."""
    model, db = ScriptedModel(), InMemoryDb()
    agents = create_agents(model, db)
    assert list(agents) == ["taskboard", "shopping", "customers", "shopping-flow"]
    for agent_id, agent in agents.items():
        assert agent.id == agent_id
        assert agent.db is db
        assert agent.name and agent.description
        if isinstance(agent, Workflow):
            assert agent.steps[0].agent is not None and agent.steps[0].agent.model is model
        else:
            assert agent.model is model


@pytest.mark.parametrize("agent_id", sorted(COMMAND_ALIASES))
def test_every_alias_names_a_tool_of_its_agent(agent_id: str) -> None:
    """Each alias points to a tool the agent really has."""
    agent = AGENT_FACTORIES[agent_id]()
    for alias, value in COMMAND_ALIASES[agent_id].items():
        tool_name, *preset = value.split()
        assert tool_name in agent.functions, f"{agent_id}: /{alias} -> {tool_name}"
        parameters = agent.functions[tool_name].parameters["properties"]
        assert all(p.split("=")[0] in parameters for p in preset), f"/{alias}: {preset}"


def test_aliases_cover_every_agent() -> None:
    """Every agent with tools in the catalog has an alias table (possibly empty)."""
    with_tools = {i for i, make in AGENT_FACTORIES.items() if make().functions}
    assert set(COMMAND_ALIASES) == with_tools


def test_resolve_command_prefers_alias_then_tool_name() -> None:
    """A command word resolves through the aliases, then to an available tool name."""
    tools = AGENT_FACTORIES["taskboard"]().functions
    assert resolve_command("taskboard", "add", tools) == "add_task"
    assert resolve_command("taskboard", "/Summary", tools) == "get_summary"
    assert resolve_command("taskboard", "add_task", tools) == "add_task"
    assert resolve_command("taskboard", "fly", tools) is None
    assert resolve_command("nobody", "add") is None


def test_overrides_replace_factory_defaults() -> None:
    """Keyword overrides reach the Agent: a different id and session_state default."""
    agent = AGENT_FACTORIES["shopping"](id="groceries", session_state={"shopping_list": ["Tea"]})
    assert agent.id == "groceries"
    assert agent.session_state == {"shopping_list": ["Tea"]}


async def test_factories_are_independent_templates() -> None:
    """Two agents from one factory do not share their default state."""
    first = AGENT_FACTORIES["taskboard"]()
    second = AGENT_FACTORIES["taskboard"]()
    await first.arun_tool("add_task", {"title": "Only here"}, session_id="s")
    assert first.session_state["tasks"] == []
    listed = await second.arun_tool("list_tasks", {}, session_id="s")
    assert listed.content == "The board is empty. Add a task with add_task."


async def test_shopping_agent_runs_seed_conversation() -> None:
    """The shopping agent follows seed 001: adds, a duplicate in other case, a removal."""
    model = ScriptedModel(
        [
            [tool_call("add_item", item=i) for i in ("milk", "eggs", "bread")],
            "Added.",
            [tool_call("add_item", item="MILK"), tool_call("remove_item", item="Bread")],
            "Milk was already there; bread removed.",
        ]
    )
    agent = AGENT_FACTORIES["shopping"](model=model)
    await agent.arun("Add milk, eggs, and bread", session_id="s")
    output = await agent.arun("add milk; I got bread", session_id="s")
    assert output.tools[0].result == "'milk' is already on the shopping list."
    assert output.session_state == {"shopping_list": ["milk", "eggs"]}
    assert 'Current shopping list: ["milk", "eggs", "bread"]' in model.requests[2].system


async def test_taskboard_prompt_shows_state_and_templated_instructions() -> None:
    """The taskboard system message fills {categories} and {tasks} and carries the state."""
    model = ScriptedModel(["hello"])
    agent = AGENT_FACTORIES["taskboard"](model=model)
    await agent.arun("hi", session_id="s")
    system = model.requests[0].system
    assert 'Categories: ["general", "work", "personal"]' in system
    assert "Current tasks: []" in system
    assert "<session_state>" in system


@pytest.mark.parametrize("package", ["tools.taskboard", "tools.shopping", "tools.customers"])
def test_public_names_exist(package: str) -> None:
    """Every name a toolkit package exports in __all__ is really there."""
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []
    assert "create_agent" in module.__all__


async def test_shopping_direct_calls_are_case_insensitive_and_persist() -> None:
    """arun_tool on the shopping agent refuses a duplicate in other case and keeps the list."""
    db = InMemoryDb()
    agent = AGENT_FACTORIES["shopping"](db=db)
    await agent.arun_tool("add_item", {"item": "Milk"}, session_id="s")
    duplicate = await agent.arun_tool("add_item", {"item": "mILK"}, session_id="s")
    assert duplicate.content == "'Milk' is already on the shopping list."
    removed = await agent.arun_tool("remove_item", {"item": "MILK"}, session_id="s")
    assert removed.content == "Removed 'Milk' from the shopping list."
    record = await db.aload("s")
    assert record is not None and record.state == {"shopping_list": []}
