"""Automatic user memories: extracted after a run by a model, bounded, shown in context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.agent import Agent
from core.db.sqlite import SqliteDb
from core.memory import MemoryManager
from core.models.openai import OpenAIChat
from core.models.scripted import tool_call
from core.testing.openai_server import FakeOpenAIServer

ANA = "console:local:ana"


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDb]:
    store = SqliteDb(db_file=tmp_path / "m.db")
    yield store
    await store.aclose()


async def test_a_run_extracts_a_lasting_fact_and_the_next_run_sees_it(db: SqliteDb) -> None:
    """After the answer, the memory pass (a second model call, with the memory tools)
    stores the fact; the next run's system message lists it."""
    with FakeOpenAIServer(
        [
            "Nice to meet you, Ana.",
            tool_call("add_memory", memory="The user's name is Ana; she prefers tea."),
            "Tea, as you like it.",
            "no change",
        ]
    ) as server:
        agent = Agent(
            model=OpenAIChat(base_url=server.base_url, api_key="test"),
            db=db,
            enable_user_memories=True,
        )
        first = await agent.arun("I'm Ana and I prefer tea.", session_id="s1", user_id=ANA)
        assert first.content == "Nice to meet you, Ana."
        memory_request = server.requests[1]
        assert {t["function"]["name"] for t in memory_request["tools"]} == {
            "add_memory", "update_memory", "delete_memory"
        }  # fmt: skip
        assert memory_request["messages"][-1]["content"] == "I'm Ana and I prefer tea."
        memories = await db.aget_memories(ANA)
        assert [m.memory for m in memories] == ["The user's name is Ana; she prefers tea."]
        assert first.metrics.model_calls == 2  # the memory call counts in the run

        await agent.arun("What should I drink?", session_id="s2", user_id=ANA)
        system = server.requests[2]["messages"][0]["content"]
        assert "The user's name is Ana; she prefers tea." in system


async def test_update_and_delete_apply_to_known_memories_only(db: SqliteDb) -> None:
    """update_memory and delete_memory act on the ids shown; an unknown id changes nothing."""
    manager = MemoryManager(db=db)
    with FakeOpenAIServer(
        [tool_call("add_memory", memory="Works on billing."),]
    ) as server:  # fmt: skip
        model = OpenAIChat(base_url=server.base_url, api_key="test")
        await manager.acreate_user_memories("I work on billing", ANA, model=model)
        (kept,) = await db.aget_memories(ANA)
        server.extend(
            [
                [
                    tool_call(
                        "update_memory", memory_id=kept.memory_id, memory="Works on payments."
                    ),
                    tool_call("delete_memory", memory_id="no-such-id"),
                ],
                tool_call("delete_memory", memory_id=kept.memory_id),
            ]
        )
        update = await manager.acreate_user_memories("I moved to payments", ANA, model=model)
        assert update.updated == [kept.memory_id] and update.deleted == []
        assert [m.memory for m in await db.aget_memories(ANA)] == ["Works on payments."]
        assert f"ID: {kept.memory_id}" in server.requests[1]["messages"][0]["content"]
        await manager.acreate_user_memories("forget where I work", ANA, model=model)
        assert await db.aget_memories(ANA) == []


async def test_memories_are_bounded_per_user_oldest_first(db: SqliteDb) -> None:
    """Past max_memories the oldest are dropped; each memory is cut to max_memory_chars."""
    manager = MemoryManager(db=db, max_memories=2, max_memory_chars=10)
    with FakeOpenAIServer(
        [[tool_call("add_memory", memory=f"fact {n} " + "x" * 20) for n in range(3)]]
    ) as server:
        model = OpenAIChat(base_url=server.base_url, api_key="test")
        update = await manager.acreate_user_memories("three facts", ANA, model=model)
    kept = await db.aget_memories(ANA)
    assert len(update.added) == 3 and len(update.deleted) == 1
    assert [m.memory for m in kept] == ["fact 1 xxx", "fact 2 xxx"]


async def test_a_failed_memory_pass_leaves_the_answer(db: SqliteDb) -> None:
    """A memory model that fails is logged; the run's answer stands and nothing is stored."""
    from core.testing.openai_server import HTTPFailure

    with FakeOpenAIServer(["Hello.", *[HTTPFailure(400)] * 3]) as server:
        agent = Agent(
            model=OpenAIChat(base_url=server.base_url, api_key="test"),
            db=db,
            enable_user_memories=True,
        )
        output = await agent.arun("I'm Ana", session_id="s1", user_id=ANA)
    assert output.content == "Hello."
    assert await db.aget_memories(ANA) == []


async def test_without_a_db_memories_live_in_process_like_the_sessions() -> None:
    """An agent without a db keeps its sessions in process memory, and its memories too."""
    with FakeOpenAIServer(["Hi.", tool_call("add_memory", memory="Likes jazz.")]) as server:
        agent = Agent(
            model=OpenAIChat(base_url=server.base_url, api_key="test"), enable_user_memories=True
        )
        await agent.arun("I like jazz", session_id="s1", user_id=ANA)
    assert agent.db is not None
    assert [m.memory for m in await agent.db.aget_memories(ANA)] == ["Likes jazz."]
