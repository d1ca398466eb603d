"""Replies when Redis is full, or a run's lease vanished: what happened, never "another run"."""

from __future__ import annotations

from bots.chat.errors import guarded
from bots.chat.replies import Reply
from core.exceptions import LeaseGoneError, StoreFullError


async def reply_to(error: BaseException) -> str:
    """The reply ``guarded`` gives when a run raises ``error``."""

    async def run() -> Reply:
        raise error

    return (await guarded(run, agent_id="a", offline_commands="/a x")).text


async def test_out_of_memory_says_so_and_nothing_was_written() -> None:
    """A write refused by a full Redis: out of memory, nothing written, not applied."""
    text = await reply_to(StoreFullError("Redis at h:1 is out of memory; nothing was written"))
    assert text.startswith("Redis is out of memory: nothing was written")
    assert "not applied" in text and "another" not in text


async def test_a_lease_evicted_by_a_full_redis_gets_the_out_of_memory_reply() -> None:
    """The lease vanished because Redis evicts under memory pressure: the same reply."""
    error = LeaseGoneError("s", 3, evicted=True, why="Redis is out of memory and evicting keys")
    assert (await reply_to(error)).startswith("Redis is out of memory: nothing was written")


async def test_an_expired_lease_says_not_applied_without_blaming_another_run() -> None:
    """The lease expired and nobody held it: not applied, resend; no other run is named."""
    error = LeaseGoneError("s", 3, evicted=False, why="this run's lease had expired")
    text = await reply_to(error)
    assert "not applied" in text and "expired" in text and "resend" in text
    assert "another" not in text
