"""A cached session's live dict and texts go to the next run without copies, safely."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.base import BaseDb
from core.db.codec import state_bytes
from core.db.in_memory import InMemoryDb
from core.db.limits import StateLimits
from core.db.records import SessionMeta
from core.db.redis import RedisDb
from core.exceptions import StateLimitError
from core.models.scripted import ScriptedModel, tool_call
from core.state import cache as cache_module
from core.state.cache import cache_of, held_only_by
from core.state.checkpoints import KeyTexts, StateTexts
from core.state.tracked import TrackedState
from core.state.view import AgentState

SEEN: list[int] = []
KEPT: list[Any] = []
TASKS: list[asyncio.Task[None]] = []


def count_sync(session_state: dict[str, Any]) -> str:
    """Change one small key (sync: runs on a worker thread over a private copy)."""
    session_state["visits"] = session_state.get("visits", 0) + 1
    return "counted"


async def count_async(session_state: dict[str, Any]) -> str:
    """Change one small key and note which dict it was (async: the live dict)."""
    SEEN.append(id(session_state))
    session_state["visits"] = session_state.get("visits", 0) + 1
    return "counted"


async def keep_state(session_state: dict[str, Any]) -> str:
    """Keep the live dict beyond the run."""
    KEPT.append(session_state)
    return "kept"


async def change_later(session_state: dict[str, Any]) -> str:
    """Leave a task behind that changes the live dict after the run."""

    async def later() -> None:
        await asyncio.sleep(0.05)
        session_state["late"] = True

    TASKS.append(asyncio.ensure_future(later()))
    return "scheduled"


@pytest.fixture(params=["memory", "redis"])
async def db(
    request: pytest.FixtureRequest, redis_url: str, key_prefix: str
) -> AsyncIterator[BaseDb]:
    """The cache on the in-process store and on Redis."""
    if request.param == "memory":
        yield InMemoryDb()
        return
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    yield store
    await store.aclose()


def _agent(db: BaseDb, *calls: Any) -> Agent:
    script: list[Any] = []
    for call in calls:
        script += [call, "ok"]
    return Agent(
        ScriptedModel(script),
        db=db,
        tools=[count_sync, count_async, keep_state, change_later],
        session_id="s",
        session_state={"big": [1, 2, 3], "name": "board"},
    )


async def test_the_next_run_gets_the_same_live_dict(db: BaseDb) -> None:
    """Turns on a cached session work on one live dict: nothing is copied per turn."""
    SEEN.clear()
    # a new session's first run starts from the default: its dict is not kept
    calls = [tool_call("count_sync"), tool_call("count_async"), tool_call("count_sync")]
    agent = _agent(db, *calls, tool_call("count_async"))
    for i in range(len(calls) + 1):
        await agent.arun(f"turn {i}")
    assert SEEN[0] == SEEN[1]  # two async turns, a sync turn between them
    cache = cache_of(db)
    assert (cache.hits, cache.copies) == (3, 0)
    state = await agent.aget_session_state()
    assert state == {"big": [1, 2, 3], "name": "board", "visits": 4}


async def test_a_kept_live_dict_is_emptied_and_not_reused(db: BaseDb) -> None:
    """A tool that keeps the live dict: the next run gets a new dict; the kept one is empty."""
    KEPT.clear()
    SEEN.clear()
    agent = _agent(db, tool_call("count_async"), tool_call("keep_state"), tool_call("count_async"))
    await agent.arun("one")
    await agent.arun("two")
    assert cache_of(db).copies == 1
    assert KEPT[0] == {}  # what it kept reaches nothing the next run uses
    KEPT[0]["junk"] = 1
    third = await agent.arun("three")
    assert third.session_state == {"big": [1, 2, 3], "name": "board", "visits": 2}
    # the kept dict is alive, so its id names it alone: run three's dict is another one
    # (run one's dict may be freed by then, and its address reused, so it proves nothing)
    assert SEEN[1] != id(KEPT[0])


async def test_a_task_left_behind_cannot_change_the_next_run(db: BaseDb) -> None:
    """A task holding the live dict after its run changes neither the store nor the next run."""
    TASKS.clear()
    agent = _agent(
        db, tool_call("count_async"), tool_call("change_later"), tool_call("count_async")
    )
    await agent.arun("one")
    await agent.arun("two")
    assert cache_of(db).copies == 1  # the task held the live dict when the run ended
    await asyncio.gather(*TASKS)
    third = await agent.arun("three")
    assert third.session_state == {"big": [1, 2, 3], "name": "board", "visits": 2}
    assert (await db.aload("s")).state == third.session_state  # type: ignore[union-attr]


async def test_an_unread_output_keeps_its_state_while_later_runs_change_it(db: BaseDb) -> None:
    """Outputs share the texts without a copy, yet each shows the state its run left."""
    agent = _agent(db, tool_call("count_async"), tool_call("count_async"), tool_call("count_sync"))
    first = await agent.arun("one")
    second = await agent.arun("two")
    await agent.arun("three")
    assert second.session_state["visits"] == 2
    assert first.session_state["visits"] == 1


def test_shared_texts_are_copied_only_while_their_holder_lives() -> None:
    """Copy on write: the first change copies the texts only if the snapshot still lives."""
    texts = {"a": "1", "b": "2"}
    keys = KeyTexts(texts)
    held = keys.share(StateTexts)
    assert held.texts is texts and keys.share(StateTexts) is held  # no copy, one holder
    keys.assign("a", "10")
    assert held.texts == {"a": "1", "b": "2"} and keys.texts == {"a": "10", "b": "2"}
    again = keys.share(StateTexts)
    assert again is not held and again.texts is keys.texts
    current = keys.texts
    del again
    gc.collect()
    keys.assign("b", "20")
    assert keys.texts is current  # nobody held the snapshot: changed in place


async def test_in_memory_size_is_kept_running() -> None:
    """InMemoryDb counts the state size per save from the changed keys, exactly."""
    db = InMemoryDb(limits=StateLimits(max_state_bytes=60))
    meta = SessionMeta(owner_id="a")
    version = await db.asave("s", expected_version=0, changed={"a": "1", "bb": '"x"'}, meta=meta)
    version = await db.asave(
        "s", expected_version=version, changed={"a": "[1,2]"}, removed={"bb"}, meta=meta
    )
    stored = db._sessions["s"]
    assert stored.size == state_bytes(stored.texts)
    with pytest.raises(StateLimitError, match="Largest keys"):
        await db.asave(
            "s", expected_version=version, changed={"c": '"' + "y" * 60 + '"'}, meta=meta
        )
    assert (await db.aload("s")).state == {"a": [1, 2]}  # type: ignore[union-attr]
    version = await db.asave("s", expected_version=version, removed={"a"}, changed={}, meta=meta)
    assert db._sessions["s"].size == state_bytes({}) == 2


class _Holder:
    __slots__ = ("state",)

    def __init__(self) -> None:
        self.state = TrackedState({"a": 1})


def test_held_only_by_sees_any_other_reference() -> None:
    """The reuse test answers yes only when the holder's attribute is the one reference."""
    holder = _Holder()
    assert held_only_by(holder)
    kept = [holder.state]
    assert not held_only_by(holder)
    kept.clear()
    assert held_only_by(holder)
    view = AgentState(holder.state)
    assert not held_only_by(holder)
    del view
    assert held_only_by(holder)


async def test_without_reference_counts_every_run_copies(
    db: BaseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the reuse test cannot run, each run copies its values and stays exact."""
    monkeypatch.setattr(cache_module, "_HELD_ONLY_BY", None)
    KEPT.clear()
    calls = [tool_call("count_async"), tool_call("keep_state"), tool_call("count_sync")]
    agent = _agent(db, *calls, tool_call("count_async"))
    for i in range(len(calls) + 1):
        output = await agent.arun(f"turn {i}")
    assert output.session_state == {"big": [1, 2, 3], "name": "board", "visits": 3}
    assert KEPT[0] == {}
    cache = cache_of(db)
    assert (cache.hits, cache.copies) == (3, 3)  # the first run starts from the default


def audit_hook(function_name: str, function_call: Any, arguments: dict[str, Any]) -> Any:
    """A sync hook: it runs on a worker thread, with the call's live arguments."""
    return function_call(**arguments)


async def test_a_sync_hook_leaves_no_reference_behind(db: BaseDb) -> None:
    """An idle worker thread drops its last job, so the live dict is still reused."""
    calls = [tool_call("count_async")] * 4
    script: list[Any] = []
    for call in calls:
        script += [call, "ok"]
    agent = Agent(
        ScriptedModel(script),
        db=db,
        tools=[count_async],
        tool_hooks=[audit_hook],
        session_id="s",
        session_state={"visits": 0},
    )
    for i in range(len(calls)):
        await agent.arun(f"turn {i}")
    assert cache_of(db).copies == 0
    assert (await agent.aget_session_state())["visits"] == 4
