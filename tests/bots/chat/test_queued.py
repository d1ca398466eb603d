"""Busy conversations: a waiting message is told so, then answered; a bound hit runs nothing."""

from __future__ import annotations

import asyncio

from bots.chat.errors import QUEUE_FULL, QUEUE_TIMEOUT
from core.db.in_memory import InMemoryDb
from core.models.scripted import tool_call
from tests.bots.conftest import ServiceFactory, message

SCOPES = {"taskboard": "thread"}


class Notice:
    """A QueueNotice keeping what it was told."""

    def __init__(self) -> None:
        self.ahead: list[int] = []

    async def queued(self, ahead: int) -> None:
        self.ahead.append(ahead)


async def _until(check: object) -> None:
    for _ in range(500):
        if check():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met")


async def test_two_messages_at_once_are_told_their_place_and_answered_in_order(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Behind a running turn, Ana hears 1 ahead and Bo 2; both are answered, Ana first."""
    service = make_service(["For Ana.", "For Bo."], statebot_agent_scopes=SCOPES)
    ana, bo = Notice(), Notice()
    session = message("x").keys.session_id
    async with db.session_lock(session):
        first = asyncio.create_task(service.handle_message(message("one"), notice=ana))
        await _until(lambda: ana.ahead)
        second = asyncio.create_task(service.handle_message(message("two", user="U2"), notice=bo))
        await _until(lambda: bo.ahead)
    replies = await asyncio.gather(first, second)
    assert (ana.ahead, bo.ahead) == ([1], [2])
    assert [r.text.split("\n")[0] for r in replies if r is not None] == ["For Ana.", "For Bo."]


async def test_no_wait_no_notice(make_service: ServiceFactory) -> None:
    """A message whose conversation is free is answered without a word about queues."""
    service = make_service(["Hi."], statebot_agent_scopes=SCOPES)
    notice = Notice()
    await service.handle_message(message("hello"), notice=notice)
    assert notice.ahead == []


async def test_a_full_queue_refuses_at_once_and_runs_nothing(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """With max_waiters queued, the next message is refused plainly; the model never sees it."""
    db.max_waiters = 1
    service = make_service(["For the queued one."], statebot_agent_scopes=SCOPES)
    session = message("x").keys.session_id
    async with db.session_lock(session):
        queued = asyncio.create_task(service.handle_message(message("one"), notice=Notice()))
        await asyncio.sleep(0.05)
        refused = await service.handle_message(message("two", user="U2"), notice=Notice())
        assert refused is not None and refused.text.startswith(QUEUE_FULL)
    done = await queued
    assert done is not None and done.text.startswith("For the queued one.")
    model = service.agents["taskboard"].model
    assert [str(r.messages[-1].content) for r in model.requests] == ["one"]  # type: ignore[union-attr]


async def test_a_wait_past_lock_timeout_runs_nothing(
    make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Busy past lock_timeout: told queued, then "nothing was run"; state and history as before."""
    service = make_service(
        [tool_call("add_task", title="milk"), "Added milk.", tool_call("add_task", title="eggs")],
        statebot_agent_scopes=SCOPES,
    )
    await service.handle_message(message("add milk"))
    session = message("x").keys.session_id
    before = await db.aload(session)
    assert before is not None
    db.lock_timeout = 0.2
    notice = Notice()
    async with db.session_lock(session, timeout=5):
        reply = await service.handle_message(message("add eggs", user="U2"), notice=notice)
    assert reply is not None and reply.text.startswith(QUEUE_TIMEOUT)
    assert notice.ahead == [1]
    model = service.agents["taskboard"].model
    assert len(model.requests) == 2 and model.remaining == 1  # type: ignore[union-attr]
    after = await db.aload(session)
    assert after is not None
    assert (after.version, after.state, after.data) == (before.version, before.state, before.data)
