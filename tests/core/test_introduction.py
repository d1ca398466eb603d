"""Agent(introduction=...): a new session starts with the agent's introduction as its first run."""

from __future__ import annotations

from core.agent import Agent
from core.db.base import BaseDb
from core.testing import ScriptedModel
from tests.db.conftest import backend as backend  # every store: the conformance fixtures
from tests.db.conftest import store as store

HELLO = "Hello! I'm your coding assistant."


def agent(store: BaseDb, model: ScriptedModel) -> Agent:
    """An agent with an introduction that reads its history."""
    return Agent(model=model, db=store, introduction=HELLO, add_history_to_context=True)


async def test_a_new_session_starts_with_the_introduction(store: BaseDb) -> None:
    """The first run of a session finds the introduction before it, saved with that run."""
    model = ScriptedModel(["Here is the function."])
    bot = agent(store, model)
    assert bot.introduction == HELLO
    await bot.arun("Write a palindrome check", session_id="s")
    # the model saw the introduction as the assistant's earlier turn
    sent = [(m.role, m.content) for m in model.requests[0].messages if m.role != "system"]
    assert sent == [("assistant", HELLO), ("user", "Write a palindrome check")]
    session = await bot.aget_session("s")
    assert session is not None and session.runs is not None
    assert [r.content for r in session.runs] == [HELLO, "Here is the function."]
    intro = session.runs[0]
    assert [(m.role, m.content) for m in intro.messages or []] == [("assistant", HELLO)]
    assert intro.agent_id == bot.id
    history = await bot.aget_chat_history("s")
    assert [(m.role, m.content) for m in history] == [
        ("assistant", HELLO),
        ("user", "Write a palindrome check"),
        ("assistant", "Here is the function."),
    ]


async def test_an_existing_session_gets_no_second_introduction(store: BaseDb) -> None:
    """Later runs, and other agent objects on the same session, add no introduction."""
    model = ScriptedModel(["one", "two", "three"])
    await agent(store, model).arun("first", session_id="s")
    await agent(store, model).arun("second", session_id="s")
    await agent(store, model).arun("third", session_id="s")
    session = await agent(store, model).aget_session("s")
    assert session is not None and session.runs is not None
    assert [r.content for r in session.runs] == [HELLO, "one", "two", "three"]


async def test_no_introduction_no_extra_run(store: BaseDb) -> None:
    """Without an introduction a session holds only its own runs."""
    bot = Agent(model=ScriptedModel(["one"]), db=store)
    assert bot.introduction is None
    await bot.arun("first", session_id="s")
    session = await bot.aget_session("s")
    assert session is not None and [r.content for r in session.runs or []] == ["one"]


async def test_the_introduction_is_saved_by_the_runs_one_save(store: BaseDb) -> None:
    """No save of its own: after the first run the session has exactly one saved version."""
    bot = agent(store, ScriptedModel(["one"]))
    await bot.arun("first", session_id="s")
    record = await store.aload("s")
    assert record is not None and record.version == 1
    assert len(await store.ahistory("s")) == 1
