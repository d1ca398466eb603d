"""The per-process session cache: reused only when the store still holds exactly it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent import Agent
from core.db import codec
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.records import KnownVersion
from core.db.redis import RedisDb
from core.exceptions import RunTimeoutError
from core.models.scripted import ScriptedModel, tool_call
from core.state.cache import CachedSession, SessionCache, cache_of


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "added"


async def add_async(session_state: dict[str, Any], item: str) -> str:
    """Add an item (async tool: works on the live state)."""
    session_state.setdefault("items", []).append(item)
    return "added"


KEPT: list[Any] = []


async def keep_reference(session_state: dict[str, Any]) -> str:
    """Keep a reference to a state value beyond the run (what a careless tool does)."""
    KEPT.append(session_state["items"])
    return "kept"


async def keep_state(session_state: dict[str, Any]) -> str:
    """Keep the live state dict itself beyond the run."""
    KEPT.append(session_state)
    return "kept"


def _agent(db: BaseDb, *calls: Any, tools: list[Any] | None = None) -> Agent:
    script: list[Any] = []
    for call in calls:
        script += [call] if isinstance(call, str) else [call, "ok"]
    return Agent(
        ScriptedModel(script or ["ok"]),
        db=db,
        tools=tools or [add, add_async, keep_reference, keep_state],
        session_id="s",
    )


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


async def test_unchanged_session_is_not_decoded_again(db: BaseDb) -> None:
    """The second turn of a session this process saved reuses the cached state."""
    agent = _agent(db, tool_call("add", item="a"), tool_call("add", item="b"))
    await agent.arun("one")
    cache = cache_of(db)
    assert (cache.hits, cache.misses) == (0, 0)
    output = await agent.arun("two")
    assert (cache.hits, cache.misses) == (1, 0)
    assert output.session_state == {"items": ["a", "b"]}
    assert (await db.aload("s")).state == {"items": ["a", "b"]}  # type: ignore[union-attr]


async def test_output_state_does_not_alias_the_cache(db: BaseDb) -> None:
    """A caller changing a run's output state changes neither the store nor the next run."""
    agent = _agent(db, tool_call("add", item="a"), tool_call("add", item="b"))
    first = await agent.arun("one")
    first.session_state["items"].append("caller's junk")
    first.session_state["junk"] = 1
    second = await agent.arun("two")
    assert second.session_state == {"items": ["a", "b"]}


async def test_streamed_events_do_not_alias_the_cache(db: BaseDb) -> None:
    """State carried by a streamed completed event is the caller's own copy."""
    agent = _agent(db, tool_call("add", item="a"), tool_call("add", item="b"))
    async for event in agent.arun("one", stream=True, stream_events=True):
        state = getattr(event, "session_state", None)
        if state:
            state["items"].append("junk")
    second = await agent.arun("two")
    assert second.session_state == {"items": ["a", "b"]}


async def test_a_reference_kept_by_a_tool_cannot_reach_the_next_run(db: BaseDb) -> None:
    """A value a tool kept and changes after its run is not what the next run sees."""
    KEPT.clear()
    agent = _agent(db, tool_call("add_async", item="a"), tool_call("keep_reference"), "ok")
    await agent.arun("one")
    await agent.arun("two")
    KEPT[0].append("changed after the run")
    third = await agent.arun("three")
    assert third.session_state == {"items": ["a"]}


async def test_a_live_dict_kept_by_a_tool_cannot_reach_the_next_run(db: BaseDb) -> None:
    """Changing a kept live dict after its run changes nothing the next run sees."""
    KEPT.clear()
    agent = _agent(db, tool_call("add_async", item="a"), tool_call("keep_state"), "ok", "ok")
    await agent.arun("one")
    await agent.arun("two")
    await agent.arun("three")  # reuses the cache
    kept = KEPT[0]
    for value in list(kept.values()) + list(dict(kept).values()):
        if isinstance(value, list):
            value.append("changed after the run")
    kept["junk"] = 1
    fourth = await agent.arun("four")
    assert fourth.session_state == {"items": ["a"]}


async def test_a_failed_run_leaves_the_session_out_of_the_cache(db: BaseDb) -> None:
    """A run that times out drops the cached session; the next run loads from the store."""

    async def hang(session_state: dict[str, Any]) -> str:
        """Change the state, then never return."""
        session_state["touched"] = True
        await asyncio.Event().wait()
        return "never"

    agent = Agent(
        ScriptedModel([tool_call("add", item="a"), "ok", tool_call("hang"), "ok"]),
        db=db,
        tools=[add, hang],
        session_id="s",
        run_timeout=0.5,
    )
    await agent.arun("one")
    assert len(cache_of(db)) == 1
    with pytest.raises(RunTimeoutError):
        await agent.arun("two")
    assert len(cache_of(db)) == 0
    third = await agent.arun("three")
    assert (cache_of(db).hits, cache_of(db).misses) == (1, 0)  # the second run's hit only
    assert third.session_state == {"items": ["a"]}


async def test_two_caches_alternating_turns_never_read_stale(
    redis_url: str, key_prefix: str
) -> None:
    """Two stores (two processes' caches) take turns on one session: no update is lost."""
    first = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    second = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    try:
        agents = [
            _agent(db, *[tool_call("add", item=f"{name}{i}") for i in range(4)])
            for name, db in (("x", first), ("y", second))
        ]
        expected: list[str] = []
        for i in range(4):
            for name, agent in zip("xy", agents, strict=True):
                output = await agent.arun(f"turn {i}")
                expected.append(f"{name}{i}")
                assert output.session_state == {"items": expected}
        assert (await first.aload("s")).state == {"items": expected}  # type: ignore[union-attr]
    finally:
        await first.aclose()
        await second.aclose()


def _entry(version: int, size: int) -> CachedSession:
    texts = {"k": codec.encode_value("k", "x" * size)}
    return CachedSession(
        known=KnownVersion(version, f"save{version}", ""),
        texts=texts,
        state=None,
        stale=frozenset(texts),
        data="",
        owner_id=None,
        size=size,
    )


def test_cache_is_bounded_least_recently_used_first_out() -> None:
    """Entries beyond the count or byte bound go, the least recently put first."""
    cache = SessionCache(max_entries=2, max_bytes=100)
    cache.put("a", _entry(1, 10))
    cache.put("b", _entry(1, 10))
    cache.put("c", _entry(1, 10))
    assert cache.take("a") is None and len(cache) == 2
    cache.put("d", _entry(1, 85))  # 105 bytes with b and c: b, the oldest, goes
    assert cache.take("b") is None and len(cache) == 2 and cache.size == 95
    cache.put("e", _entry(1, 500))  # larger than the whole cache: not kept
    assert cache.take("e") is None
    taken = cache.take("d")
    assert taken is not None and cache.take("d") is None and cache.size == 10


async def append_then_fail(session_state: dict[str, Any]) -> str:
    """Change a value in place, then fail (the runtime rolls the call back)."""
    session_state["items"].append("undone")
    raise RuntimeError("boom")


async def count_visit(session_state: dict[str, Any]) -> str:
    """Change one small key."""
    session_state["visits"] = session_state.get("visits", 0) + 1
    return "counted"


async def _turn(db: BaseDb, *calls: Any) -> dict[str, Any]:
    """One turn the way the runtime runs it (the loop, then the final save and release)."""
    from core.agent.loop import LoopSpec, run_loop
    from core.agent.prompt import PromptSpec
    from core.db.records import SessionMeta
    from core.state.session import open_session
    from core.tools.function import Function

    tools = [add, add_async, append_then_fail, count_visit]
    spec = LoopSpec(
        owner_id="a",
        model=ScriptedModel([*calls, "ok"]),
        functions={f.__name__: Function.from_callable(f) for f in tools},
        hooks=(),
        prompt=PromptSpec(),
    )
    async with open_session(
        db, session_id="s", user_id="u", run_id="r", meta=SessionMeta(owner_id="a"), default={}
    ) as handle:
        output = await run_loop(spec, handle, "go", dependencies={}, metadata={})
        await handle.persist_final()
    return output.session_state


async def test_reused_values_survive_rollbacks_and_small_changes(db: BaseDb) -> None:
    """Turns that reuse cached values see exactly what the store holds, whatever ran."""
    assert await _turn(db, tool_call("add", item="a")) == {"items": ["a"]}
    cache = cache_of(db)
    state = await _turn(db, tool_call("append_then_fail"), tool_call("count_visit"))
    assert state == {"items": ["a"], "visits": 1}
    state = await _turn(db, tool_call("count_visit"), tool_call("add_async", item="b"))
    assert state == {"items": ["a", "b"], "visits": 2}
    state = await _turn(db, tool_call("append_then_fail"))
    assert state == {"items": ["a", "b"], "visits": 2}
    assert cache.hits == 3
    assert (await db.aload("s")).state == state  # type: ignore[union-attr]


async def test_after_its_own_save_a_process_is_told_unchanged(db: BaseDb) -> None:
    """The store recognises the session this process last saved: no state is read."""
    seen: list[bool] = []
    real = db.open_run

    @contextlib.asynccontextmanager
    async def spy(session_id: str, **kw: Any) -> AsyncIterator[Any]:
        async with real(session_id, **kw) as opened:
            seen.append(opened.unchanged)
            yield opened

    db.open_run = spy  # type: ignore[method-assign]
    await _turn(db, tool_call("add", item="a"))
    state = await _turn(db, tool_call("count_visit"))
    assert seen == [False, True]
    assert state == {"items": ["a"], "visits": 1}
