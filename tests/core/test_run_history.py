"""Run history: stored with the session, bounded, sent to the model, read back by the API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.models.base import Message
from core.run import RunStatus
from core.testing import ScriptedModel, tool_call


def add_task(session_state: dict[str, Any], title: str) -> str:
    """Add a task."""
    session_state.setdefault("tasks", []).append(title)
    return f"added task {len(session_state['tasks'])}: {title}"


class Recording(ScriptedModel):
    """A scripted model that keeps the messages of every call."""

    def __init__(self, turns: list[Any]) -> None:
        super().__init__(turns)
        self.seen: list[list[Message]] = []

    async def ainvoke(self, messages: list[Message], tools: Any = None) -> Any:
        self.seen.append(list(messages))
        return await super().ainvoke(messages, tools)


def _contents(messages: list[Message]) -> list[str]:
    turns = [m for m in messages if m.role in ("user", "assistant") and m.content]
    return [f"{m.role}:{m.content}" for m in turns]


async def test_earlier_turns_reach_the_model_bounded_by_num_history_runs() -> None:
    """Three runs, then a fourth that needs the first answer: the model gets the last two."""
    model = Recording(["one", "two", "three", "four"])
    agent = Agent(model=model, add_history_to_context=True, num_history_runs=2)
    for question in ("q1", "q2", "q3", "q4"):
        await agent.arun(question, session_id="s")
    assert _contents(model.seen[0]) == ["user:q1"]
    assert _contents(model.seen[3]) == [
        "user:q2",
        "assistant:two",
        "user:q3",
        "assistant:three",
        "user:q4",
    ]


async def test_without_add_history_to_context_the_model_sees_only_the_question() -> None:
    """History is stored either way, but sent only when asked for."""
    model = Recording(["one", "two"])
    agent = Agent(model=model)
    await agent.arun("q1", session_id="s")
    await agent.arun("q2", session_id="s")
    assert _contents(model.seen[1]) == ["user:q2"]
    assert [m.content for m in await agent.aget_chat_history("s")] == ["q1", "one", "q2", "two"]


async def test_a_follow_up_can_refer_to_an_earlier_answer_with_tools() -> None:
    """'mark that one done' works: the earlier answer naming the task is in the context."""
    model = Recording([tool_call("add_task", title="Ship it"), "Added task 1: Ship it", "Done."])
    agent = Agent(model=model, tools=[add_task], add_history_to_context=True)
    await agent.arun("add ship it", session_id="s")
    await agent.arun("mark that one done", session_id="s")
    assert "assistant:Added task 1: Ship it" in _contents(model.seen[-1])


async def test_runs_of_different_users_in_one_thread_are_attributed() -> None:
    """In a shared thread each earlier question names who asked it."""
    model = Recording(["a1", "a2", "a3"])
    agent = Agent(model=model, add_history_to_context=True)
    await agent.arun("from ana", session_id="t", user_id="slack:T1:ANA")
    await agent.arun("from bo", session_id="t", user_id="slack:T1:BO")
    await agent.arun("and again", session_id="t", user_id="slack:T1:ANA")
    assert _contents(model.seen[2])[:4] == [
        "user:slack:T1:ANA: from ana",
        "assistant:a1",
        "user:slack:T1:BO: from bo",
        "assistant:a2",
    ]


async def test_history_is_trimmed_at_the_bound() -> None:
    """Only the newest max_runs runs are kept; the oldest go first."""
    db = InMemoryDb(limits=StateLimits(max_runs=3))
    agent = Agent(model=ScriptedModel([f"a{n}" for n in range(6)]), db=db)
    for n in range(6):
        await agent.arun(f"q{n}", session_id="s")
    session = await agent.aget_session("s")
    assert session is not None
    assert [r.input and r.input.input_content for r in session.runs] == ["q3", "q4", "q5"]


async def test_history_is_trimmed_by_bytes_too() -> None:
    """A bound in bytes drops the oldest runs until the history fits."""
    db = InMemoryDb(limits=StateLimits(max_runs=50, max_data_bytes=2_000))
    agent = Agent(model=ScriptedModel(["x" * 300] * 10), db=db)
    for n in range(10):
        await agent.arun(f"q{n}", session_id="s")
    record = await db.aload("s")
    assert record is not None and len(record.data.encode()) <= 2_000
    session = await agent.aget_session("s")
    assert (
        session is not None
        and session.runs[-1].get_content_as_string() == "x" * 300
        and len(session.runs) < 10
    )


@pytest.fixture(params=["sqlite", "redis"])
def pair_kind(request: pytest.FixtureRequest) -> tuple[str, str | None, str | None]:
    """Which stores to pair; the Redis fixtures are set up here, outside the event loop."""
    if request.param == "redis":
        return "redis", request.getfixturevalue("redis_url"), request.getfixturevalue("key_prefix")
    return "sqlite", None, None


@pytest.fixture
async def durable_pair(
    pair_kind: tuple[str, str | None, str | None], tmp_path: Path
) -> AsyncIterator[list[BaseDb]]:
    """Two stores on the same data, as two processes (or a restart) would open them."""
    kind, url, prefix = pair_kind
    stores: list[BaseDb]
    if kind == "sqlite":
        stores = [SqliteDb(db_file=tmp_path / "h.db") for _ in range(2)]
    else:
        assert url is not None and prefix is not None
        durable = SqliteDb(db_file=tmp_path / "h.db")
        stores = [RedisDb(db_url=url, key_prefix=prefix, snapshot_to=durable) for _ in range(2)]
    yield stores
    for store in stores:
        await store.aclose()


async def test_history_survives_a_restart(durable_pair: list[BaseDb]) -> None:
    """A new Agent on a new store instance continues the conversation."""
    first, second = durable_pair
    await Agent(model=ScriptedModel(["first answer"]), db=first).arun("q1", session_id="s")
    model = Recording(["second answer"])
    await Agent(model=model, db=second, add_history_to_context=True).arun("q2", session_id="s")
    assert _contents(model.seen[0]) == ["user:q1", "assistant:first answer", "user:q2"]


async def test_session_api_reads_runs_name_and_last_output() -> None:
    """get_session, names, last run output and delete_session behave as in Agno."""
    agent = Agent(model=ScriptedModel(["hello"]), tools=[add_task])
    await agent.arun("hi", session_id="s", user_id="u1")
    named = await agent.aset_session_name("s", session_name="Standup")
    assert named.session_data is not None and named.session_data["session_name"] == "Standup"
    session = await agent.aget_session("s")
    assert session is not None and session.session_data == named.session_data
    assert [r.status for r in session.runs or ()] == [RunStatus.completed]
    last = await agent.aget_last_run_output("s")
    assert last is not None and last.content == "hello" and last.user_id == "u1"
    assert await agent.aget_session_name("s") == "Standup"
    assert await agent.adelete_session("s") is True
    assert await agent.aget_session("s") is None
    assert await agent.adelete_session("s") is False


async def test_output_messages_start_with_the_system_message() -> None:
    """RunOutput.messages carries the system message, as Agno's does."""
    agent = Agent(model=ScriptedModel(["ok"]), instructions="Be brief.")
    output = await agent.arun("hi", session_id="s")
    assert output.messages[0].role == "system" and "Be brief." in (output.messages[0].content or "")


async def test_read_chat_history_tool_returns_earlier_turns() -> None:
    """read_chat_history=True gives the model get_chat_history, as in Agno."""
    model = Recording(["first", tool_call("get_chat_history"), "I see"])
    agent = Agent(model=model, read_chat_history=True)
    await agent.arun("q1", session_id="s")
    output = await agent.arun("what did I ask?", session_id="s")
    assert '"content": "q1"' in output.tools[0].result


async def test_a_failed_run_is_on_record_as_an_error() -> None:
    """A run that raised leaves an error entry; earlier saved state stays."""
    agent = Agent(model=ScriptedModel([]), tools=[add_task])
    with pytest.raises(Exception):  # noqa: B017 - the script has no turn left
        await agent.arun("q", session_id="s")
    session = await agent.aget_session("s")
    assert session is not None and [r.status for r in session.runs or ()] == [RunStatus.error]
