"""Console replies to common mistakes are plain sentences, without class names."""

from __future__ import annotations

from bots.adapters.console.session import ConsoleSession
from bots.app.service import chat_service
from bots.settings import Settings
from core.db.in_memory import InMemoryDb
from tools.catalog import COMMAND_ALIASES, create_agents


def _console(agent: str = "taskboard") -> ConsoleSession:
    db = InMemoryDb()
    service = chat_service(create_agents(None, db), settings=Settings(), aliases=COMMAND_ALIASES)
    return ConsoleSession(service, agent_id=agent, session="s", user="me")


async def test_unquoted_title_suggests_quotes() -> None:
    """`/add Buy milk` says the category is unknown and how to quote the whole title."""
    reply = await _console().handle_line("/add Buy milk")
    assert reply.text is not None
    assert "Unknown category 'milk'" in reply.text
    assert 'put it in quotes: "Buy milk"' in reply.text


async def test_unknown_customer_is_a_sentence() -> None:
    """An unknown customer is reported without the exception's class name."""
    reply = await _console().handle_line("/customers customer 789")
    assert reply.text is not None
    assert reply.text.startswith("Error: Customer '789' not found. Known customers: none yet.")
    assert "CustomerRequestError" not in reply.text and ".." not in reply.text


async def test_session_switch_list_and_reset() -> None:
    """`/session` switches, `/sessions` lists this console's sessions, `/state reset` clears one."""
    console = _console()
    await console.handle_line('/add "Buy milk"')
    assert (await console.handle_line("/session work")).text == (
        "Now in session work (agent taskboard)."
    )
    await console.handle_line("/shopping add eggs")
    listed = (await console.handle_line("/sessions")).text or ""
    assert listed.splitlines()[0] == "Sessions (* current):"
    assert "  s (taskboard)" in listed and "* work (shopping)" in listed
    reset = (await console.handle_line("/state reset")).text or ""
    assert reset.startswith("Session console:local:work reset")
    assert (await console.handle_line("/session s")).text == "Now in session s (agent taskboard)."
    again = (await console.handle_line("/state reset")).text or ""
    assert again.startswith("Session console:local:s reset")
    assert (await console.handle_line("/state reset")).text == (
        "Session console:local:s has no stored state; nothing to reset."
    )
    assert (await console.handle_line("/state frob")).text is not None
