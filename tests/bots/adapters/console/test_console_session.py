"""ConsoleSession: line dispatch without a terminal."""

from __future__ import annotations

import json

import pytest

from bots.adapters.console.session import ConsoleSession
from core.db.in_memory import InMemoryDb
from core.models.scripted import Turn, tool_call
from tests.bots.conftest import ServiceFactory


def _console(service_factory: ServiceFactory, turns: list[Turn] | None = None) -> ConsoleSession:
    return ConsoleSession(service_factory(turns), agent_id="taskboard", session="t", user="ann")


async def test_slash_tool_runs_and_state_shows_it(make_service: ServiceFactory) -> None:
    """`/add …` runs the tool; `/state` prints the saved state as JSON."""
    console = _console(make_service)
    added = await console.handle_line('/add "Review Q2 roadmap" category=work')
    assert added.text == "Added task #1: Review Q2 roadmap (work, open)."
    shown = await console.handle_line("/state")
    assert shown.text is not None and shown.text.startswith("Session console:local:t (taskboard):")
    state = json.loads(shown.text.split("\n", 1)[1])
    assert state["tasks"][0]["title"] == "Review Q2 roadmap"


async def test_free_text_goes_to_the_current_agent(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Free text runs the current agent's model in the console session."""
    console = _console(make_service, [tool_call("add_task", title="Buy milk"), "Done: Buy milk."])
    outcome = await console.handle_line("please add buy milk")
    assert outcome.text == "Done: Buy milk."
    record = await db.aload("console:local:t")
    assert record is not None and record.state["tasks"][0]["title"] == "Buy milk"


async def test_free_text_starting_with_an_agent_name_stays_with_current_agent(
    make_service: ServiceFactory,
) -> None:
    """In the console the current agent answers; the first word is not a route."""
    console = _console(make_service, ["fine"])
    await console.handle_line("shopping is on my mind")
    model = console.service.agents["taskboard"].model
    assert model.requests[0].messages[-1].content == "shopping is on my mind"


async def test_switch_agent_and_run_other_agents_commands(make_service: ServiceFactory) -> None:
    """`/agent shopping` switches; `/taskboard list` still reaches the taskboard."""
    console = _console(make_service)
    assert (await console.handle_line("/agent shopping")).text == "Now talking to shopping."
    assert (await console.handle_line("/add green apples")).text == (
        "Added 'green apples' to the shopping list."
    )
    listed = await console.handle_line("/taskboard list")
    assert listed.text is not None and "task" in listed.text.lower()
    unknown = await console.handle_line("/agent nope")
    assert unknown.text is not None and "Unknown agent 'nope'" in unknown.text
    assert console.agent_id == "shopping"


async def test_help_lists_agents_and_commands(make_service: ServiceFactory) -> None:
    """`/help` lists every agent and the current agent's commands with parameters."""
    text = (await _console(make_service).handle_line("/help")).text or ""
    assert "shopping" in text and "customers" in text
    assert "/add_task <title> [category]" in text and "/quit" in text


@pytest.mark.parametrize("line", ["/quit", "/exit", "/QUIT"])
async def test_quit(make_service: ServiceFactory, line: str) -> None:
    """`/quit` ends the console."""
    assert (await _console(make_service).handle_line(line)).quit


async def test_blank_line_prints_nothing(make_service: ServiceFactory) -> None:
    """An empty line is ignored."""
    outcome = await _console(make_service).handle_line("   ")
    assert outcome.text is None and not outcome.quit


async def test_bad_command_is_clear_and_changes_nothing(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Unknown commands and bad arguments reply clearly; the store is untouched."""
    console = _console(make_service)
    unknown = await console.handle_line("/frobnicate")
    assert unknown.text is not None and "Unknown command 'frobnicate'" in unknown.text
    bad = await console.handle_line('/add "unclosed')
    assert bad.text is not None and "check the quotes" in bad.text
    assert await db.alist_sessions() == []


def test_unknown_start_agent_is_rejected(make_service: ServiceFactory) -> None:
    """Starting on an agent that does not exist is an error naming the agents."""
    with pytest.raises(ValueError, match="taskboard"):
        ConsoleSession(make_service(None), agent_id="nope", session="t", user="ann")
