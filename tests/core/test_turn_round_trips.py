"""A turn on RedisDb costs 2 round trips: open (lease + load) and the final save (+ release)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent.loop import LoopSpec, run_loop
from core.agent.prompt import PromptSpec
from core.db.records import SessionMeta
from core.db.redis import RedisDb
from core.models.base import Message, Model, ModelResponse, ToolCall
from core.models.scripted import ScriptedModel, tool_call
from core.state.session import open_session
from core.tools.function import Function


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "added"


class SlowSecondAnswer(Model):
    """A tool call at once, then an answer that takes ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        self.id = "slow"
        self.delay = delay

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        if messages[-1].role == "tool":
            await asyncio.sleep(self.delay)
            return ModelResponse(content="done")
        return ModelResponse(tool_calls=(ToolCall(id="c1", name="add", arguments='{"item": "x"}'),))


@pytest.fixture
async def db(redis_url: str, key_prefix: str) -> AsyncIterator[RedisDb]:
    """A RedisDb under this test's prefix."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    yield store
    await store.aclose()


def _spec(model: Model) -> LoopSpec:
    return LoopSpec(
        owner_id="a",
        model=model,
        functions={"add": Function.from_callable(add)},
        hooks=(),
        prompt=PromptSpec(),
    )


async def _turn(db: RedisDb, model: Model, run_id: str) -> tuple[dict[str, Any], bool]:
    """One turn as the runtime runs it: open, the model loop, the final save that releases."""
    async with open_session(
        db,
        session_id="s",
        user_id="u",
        run_id=run_id,
        meta=SessionMeta(owner_id="a"),
        default={"items": []},
    ) as handle:
        output = await run_loop(_spec(model), handle, "go", dependencies={}, metadata={})
        await handle.persist_final()
        released = handle.lease.released
    return output.session_state, released


async def test_a_turn_with_one_tool_batch_costs_two_round_trips(db: RedisDb) -> None:
    """Open (lease + load, or the cache check) and the final save (+ release): 2 in all."""
    await _turn(db, ScriptedModel([tool_call("add", item="a"), "ok"]), "r0")
    db.round_trips.reset()
    state, released = await _turn(db, ScriptedModel([tool_call("add", item="b"), "ok"]), "r1")
    assert db.round_trips.reset() == 2
    assert released  # by the final save itself
    assert state == {"items": ["a", "b"]}


async def test_a_slow_model_call_saves_the_batch_meanwhile(
    db: RedisDb, redis_url: str, key_prefix: str
) -> None:
    """Past the grace period the batch is saved while the model works: 3 round trips."""
    await _turn(db, ScriptedModel([tool_call("add", item="a"), "ok"]), "r0")
    db.round_trips.reset()
    seen: list[Any] = []

    class Watching(SlowSecondAnswer):
        async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> Any:
            if messages[-1].role == "tool":
                await asyncio.sleep(0.3)
                other = RedisDb(db_url=redis_url, key_prefix=key_prefix)
                record = await other.aload("s")
                await other.aclose()
                seen.append(record.state if record else None)
            return await super().ainvoke(messages, tools)

    state, released = await _turn(db, Watching(0.0), "r1")
    assert seen == [{"items": ["a", "x"]}]  # saved before the model answered
    assert state == {"items": ["a", "x"]}
    # open, the batch's save; the final save had nothing left to write, so the lease
    # went back at the block's end: 3
    assert not released
    assert db.round_trips.reset() == 3


async def test_a_failed_batch_save_ends_the_run_with_its_error() -> None:
    """A batch save that fails while the model works ends the run with that error."""
    from core.agent import Agent
    from core.db.in_memory import InMemoryDb
    from core.exceptions import StoreUnavailableError

    class FailingOnce(InMemoryDb):
        saves = 0

        async def asave(self, session_id: str, **kw: Any) -> int:  # type: ignore[override]
            self.saves += 1
            if self.saves == 2:  # the second run's batch save
                raise StoreUnavailableError("the store went away")
            return await super().asave(session_id, **kw)

    class Slow(SlowSecondAnswer):
        pass

    db = FailingOnce()
    agent = Agent(Slow(0.0), db=db, tools=[add], session_id="s")
    await agent.arun("one")
    agent.model = Slow(0.3)
    with pytest.raises(StoreUnavailableError, match="went away"):
        await agent.arun("two")
    assert db.saves == 2  # nothing was saved after the failure
    assert (await db.aload("s")).state == {"items": ["x"]}  # type: ignore[union-attr]
