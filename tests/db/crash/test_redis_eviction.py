"""Redis under memory pressure: refusals say what happened, and no state is lost.

A private redis-server with a small ``maxmemory``. Under ``volatile-*`` the run leases
(which must carry a TTL, so a crashed holder's lease expires) are what gets evicted:
a run whose lease vanished is refused saying Redis is out of memory, never that
another run may hold the session. Under ``noeviction`` (the documented policy) a full
Redis refuses the write before it runs, and says so.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis
from structlog.testing import capture_logs

from bots.chat.errors import guarded
from bots.chat.replies import Reply
from core.agent import Agent
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.exceptions import LeaseGoneError, StoreError, StoreFullError
from core.models.scripted import ScriptedModel, tool_call
from tests.db.crash.conftest import RedisServer

MAXMEMORY = 4 * 1024 * 1024
PAD = "x" * 65_536


def add(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "added"


async def reply_to(error: BaseException) -> str:
    """The chat reply to a run that failed with ``error``."""

    async def run() -> Reply:
        raise error

    return (await guarded(run, agent_id="a", offline_commands="")).text


@pytest.mark.parametrize("policy", ["volatile-lru", "volatile-ttl"])
async def test_a_lease_evicted_by_a_full_redis_is_refused_as_out_of_memory(
    tmp_path: Path, policy: str
) -> None:
    """Memory fills with other sessions while a run holds its session; Redis evicts the
    lease: the run is refused as out of memory, nothing written, every state intact."""
    server = RedisServer(tmp_path, "--maxmemory", str(MAXMEMORY), "--maxmemory-policy", policy)
    server.start()
    store = RedisDb(db_url=server.url)
    other = Redis.from_url(server.url)
    crowding: list[str] = []

    async def crowd(session_state: dict[str, Any]) -> str:
        """Add an item while other conversations' changes fill Redis's memory."""
        session_state["items"].append("b")
        while int((await other.info("memory"))["used_memory"]) <= MAXMEMORY:
            # unsnapshotted sessions carry no TTL, so the lease is what Redis can evict
            name = f"other-{len(crowding)}"
            try:
                await store.asave(name, expected_version=0, changed=texts({"pad": PAD}))
            except StoreFullError:
                break  # refused whole; Redis evicted what it could first
            crowding.append(name)
        return "added"

    model = ScriptedModel([tool_call("add", item="a"), "added a", tool_call("crowd"), "done"])
    agent = Agent(model, db=store, tools=[add, crowd], session_id="s")
    try:
        await agent.arun("add a")
        with pytest.raises(LeaseGoneError) as caught:
            await agent.arun("crowd")
        message = str(caught.value)
        assert "out of memory" in message and "nothing was written" in message
        assert "another run" not in message and caught.value.evicted
        reply = await reply_to(caught.value)
        assert reply.startswith("Redis is out of memory: nothing was written")
        record = await store.aload("s")
        assert record is not None and record.state == {"items": ["a"]}
        assert crowding and int((await other.info("stats"))["evicted_keys"]) >= 1
        for session_id in crowding:
            kept = await store.aload(session_id)
            assert kept is not None and kept.state == {"pad": PAD}
    finally:
        await other.aclose()
        await store.aclose()
        server.kill()


async def test_runs_on_a_full_noeviction_redis_are_refused_as_out_of_memory(
    tmp_path: Path,
) -> None:
    """Redis filled with unsnapshotted sessions under noeviction: every run is refused
    saying Redis is out of memory and nothing was written; every stored session stays."""
    server = RedisServer(
        tmp_path, "--maxmemory", str(MAXMEMORY), "--maxmemory-policy", "noeviction"
    )
    server.start()
    store = RedisDb(db_url=server.url)
    try:
        filled: list[str] = []
        with pytest.raises(StoreFullError):
            for n in range(1000):
                await store.asave(
                    f"f{n}", expected_version=0, changed=texts({"n": n, "pad": "x" * 20_000})
                )
                filled.append(f"f{n}")
        outcomes: list[str] = []
        for n in range(10):
            model = ScriptedModel([tool_call("add", item=f"i{n}"), "done"])
            agent = Agent(model, db=store, tools=[add], session_id=filled[n])
            try:
                await agent.arun("add")
                outcomes.append("applied")
            except StoreError as exc:
                assert isinstance(exc, StoreFullError), exc
                assert "out of memory" in str(exc) and "nothing was written" in str(exc)
                assert (await reply_to(exc)).startswith("Redis is out of memory")
                outcomes.append("refused")
        assert outcomes == ["refused"] * 10
        for n, session_id in enumerate(filled):
            record = await store.aload(session_id)
            assert record is not None and record.state == {"n": n, "pad": "x" * 20_000}
    finally:
        await store.aclose()
        server.kill()


async def test_the_start_up_check_warns_about_a_volatile_policy(tmp_path: Path) -> None:
    """The first ping (a process's start-up check) names a volatile-lru policy once."""
    server = RedisServer(tmp_path, "--maxmemory-policy", "volatile-lru")
    server.start()
    store = RedisDb(db_url=server.url)
    try:
        with capture_logs() as logs:
            await store.aping()
            await store.aping()
        warned = [e for e in logs if e["log_level"] == "warning"]
        assert len(warned) == 1 and "'volatile-lru'" in warned[0]["event"]
        assert "leases" in warned[0]["event"] and "noeviction" in warned[0]["event"]
    finally:
        await store.aclose()
        server.kill()


async def test_an_expired_lease_nobody_took_is_refused_as_expired(tmp_path: Path) -> None:
    """No eviction: a lease that lapsed with no other holder is refused as expired, and
    the message does not invent another run."""
    server = RedisServer(tmp_path, "--maxmemory-policy", "noeviction")
    server.start()
    store = RedisDb(db_url=server.url, lock_ttl=0.2)
    try:
        await store.asave("s", expected_version=0, changed=texts({"n": 0}))
        lease = await store.leases.acquire("s", timeout=5)  # held without renewal
        await asyncio.sleep(0.5)
        with pytest.raises(LeaseGoneError) as caught:
            await store.asave("s", expected_version=1, changed=texts({"n": 1}), lease=lease)
        message = str(caught.value)
        assert "expired" in message and "nothing was written" in message
        assert "another run" not in message and not caught.value.evicted
        record = await store.aload("s")
        assert record is not None and record.state == {"n": 0}
    finally:
        await store.aclose()
        server.kill()
