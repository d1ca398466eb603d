"""RedisDb as a store: key schema, round trips, deltas, limits, errors."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from core.db.base import BaseDb
from core.db.codec import encode_delta as texts
from core.db.limits import StateLimits
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.values import StateValueError
from core.exceptions import StaleVersionError, StateLimitError, StoreUnavailableError


async def redis_store(request: pytest.FixtureRequest) -> BaseDb:
    """Conformance-suite factory: a RedisDb under the test's own key prefix."""
    return RedisDb(
        db_url=request.getfixturevalue("redis_url"),
        key_prefix=request.getfixturevalue("key_prefix"),
    )


@pytest.fixture
async def db(redis_url: str, key_prefix: str) -> AsyncIterator[RedisDb]:
    """A RedisDb without a durable store."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    yield store
    await store.aclose()


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain client to look at what RedisDb wrote."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_load_and_save_take_one_round_trip_each(db: RedisDb) -> None:
    """A load is one round trip and a save is one round trip (scripts already cached)."""
    version = await db.asave("s", expected_version=0, changed=texts({"items": [1]}))
    await db.aload("s")
    db.round_trips.reset()
    await db.aload("s")
    assert db.round_trips.reset() == 1
    await db.asave("s", expected_version=version, changed=texts({"items": [1, 2]}))
    assert db.round_trips.reset() == 1


async def test_stale_version_write_fails_and_writes_nothing(db: RedisDb) -> None:
    """A save based on an old version raises StaleVersionError and leaves state as it was."""
    await db.asave("s", expected_version=0, changed=texts({"n": 1}))
    await db.asave("s", expected_version=1, changed=texts({"n": 2}))
    with pytest.raises(StaleVersionError) as info:
        await db.asave("s", expected_version=1, changed=texts({"n": 99}))
    assert info.value.actual == 2
    record = await db.aload("s")
    assert record is not None and record.state == {"n": 2} and record.version == 2


async def test_one_field_per_key_changed_written_removed_deleted(
    db: RedisDb, raw: aioredis.Redis
) -> None:
    """The state hash holds one JSON field per top-level key; removed keys are HDEL'd."""
    await db.asave("s", expected_version=0, changed=texts({"a": {"x": 1}, "b": "two", "c": None}))
    await db.asave("s", expected_version=1, changed=texts({"a": [3]}), removed={"b"})
    keys = SessionKeys(db.key_prefix, "s")
    assert await raw.hgetall(keys.state) == {"a": "[3]", "c": "null"}
    meta = await raw.hgetall(keys.meta)
    assert meta["v"] == "2" and meta["id"] == "s"


async def test_session_keys_and_dirty_set_share_one_hash_tag(
    db: RedisDb, raw: aioredis.Redis
) -> None:
    """Every key of a session and its bucket's dirty set carry the same {tag}."""
    session_id = "slack:T1:{C1}:1700.1"
    await db.asave(session_id, expected_version=0, changed=texts({"k": 1}))
    keys = SessionKeys(db.key_prefix, session_id)
    tag = keys.bucket.tag[len(db.key_prefix) :]
    for name in (keys.state, keys.meta, keys.hist, keys.lease, keys.bucket.dirty):
        assert name.startswith(db.key_prefix + tag)
        assert name.count("{") == 1 and name.count("}") == 1
    assert await raw.sismember(keys.bucket.dirty, keys.hashed)


async def test_hostile_session_ids_stay_isolated(db: RedisDb) -> None:
    """Ids with ':', braces, unicode or 1 KB of text never share or break keys."""
    hostile = [":", "a:b", "a}:{b", "{", "}", "{}", "ünï©ødé 🎉", "x" * 1024, ""]
    for n, session_id in enumerate(hostile):
        await db.asave(session_id, expected_version=0, changed=texts({"n": n}))
    for n, session_id in enumerate(hostile):
        record = await db.aload(session_id)
        assert record is not None and record.state == {"n": n}
        assert record.session_id == session_id
    listed = {r.session_id for r in await db.alist_sessions(limit=100)}
    assert listed == set(hostile)


async def test_non_json_value_is_rejected_naming_the_key(db: RedisDb) -> None:
    """A non-JSON value is a clear error naming the key; nothing of the change is stored."""
    await db.asave("s", expected_version=0, changed=texts({"ok": 1}))
    with pytest.raises(StateValueError, match="'bad'"):
        await db.asave("s", expected_version=1, changed=texts({"ok": 2, "bad": {1, 2}}))
    record = await db.aload("s")
    assert record is not None and record.state == {"ok": 1} and record.version == 1


async def test_state_size_limit_counts_the_whole_state(redis_url: str, key_prefix: str) -> None:
    """A save that makes the whole state too large fails clearly and writes nothing."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix, limits=StateLimits(100, 8))
    try:
        await store.asave("s", expected_version=0, changed=texts({"a": "x" * 45}))
        with pytest.raises(StateLimitError, match="limit is 100"):
            await store.asave("s", expected_version=1, changed=texts({"b": "y" * 45}))
        with pytest.raises(StateLimitError, match="characters long"):
            await store.asave("s", expected_version=1, changed=texts({"k" * 9: 1}))
        record = await store.aload("s")
        assert record is not None and record.state == {"a": "x" * 45} and record.version == 1
        # removing a key frees its bytes again
        await store.asave("s", expected_version=1, changed=texts({"b": "y" * 45}), removed={"a"})
    finally:
        await store.aclose()


async def test_history_gives_full_states_newest_first(db: RedisDb) -> None:
    """ahistory rebuilds each recent version's full state from undo records."""
    await db.asave("s", expected_version=0, changed=texts({"a": 1, "b": 1}))
    await db.asave("s", expected_version=1, changed=texts({"a": 2}), removed={"b"})
    await db.asave("s", expected_version=2, changed=texts({"c": [1]}))
    history = await db.ahistory("s")
    assert [(e.version, e.state) for e in history] == [
        (3, {"a": 2, "c": [1]}),
        (2, {"a": 2}),
        (1, {"a": 1, "b": 1}),
    ]
    assert [e.version for e in await db.ahistory("s", limit=2)] == [3, 2]


async def test_redis_down_raises_store_unavailable(key_prefix: str) -> None:
    """A Redis that cannot be reached gives StoreUnavailableError naming where it looked."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    store = RedisDb(db_url=f"redis://127.0.0.1:{port}/0", key_prefix=key_prefix)
    with pytest.raises(StoreUnavailableError, match=f"127.0.0.1:{port}"):
        await store.aload("s")
    with pytest.raises(StoreUnavailableError):
        await store.asave("s", expected_version=0, changed=texts({"a": 1}))
    with pytest.raises(StoreUnavailableError):
        async with store.session_lock("s", timeout=1):
            pass
    await store.aclose()


def test_key_prefix_with_hash_tag_braces_is_rejected() -> None:
    """A prefix containing braces would break the hash tag, so it is refused up front."""
    with pytest.raises(ValueError, match="hash tags"):
        RedisDb(key_prefix="bad{prefix}:")


async def test_memories_live_in_redis_without_durable_store(db: RedisDb) -> None:
    """Without a durable store, user memories are kept in Redis, oldest first."""
    from core.db.records import UserMemory

    await db.aadd_memory(UserMemory("m2", "u", "likes tea", created_at=2.0))
    await db.aadd_memory(UserMemory("m1", "u", "works nights", ("work",), created_at=1.0))
    assert [m.memory_id for m in await db.aget_memories("u")] == ["m1", "m2"]
    assert await db.adelete_memory("u", "m1") is True
    assert await db.adelete_memory("u", "m1") is False


def test_each_event_loop_gets_its_own_client(redis_url: str, key_prefix: str) -> None:
    """One RedisDb serves callers on different event loops (threads) without errors."""
    store = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        async def go() -> None:
            await store.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
            record = await store.aload(f"s{n}")
            assert record is not None and record.state == {"n": n}

        try:
            asyncio.run(go())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    asyncio.run(store.asave("s0", expected_version=1, changed=texts({"n": 10})))
    asyncio.run(store.aclose())
    assert errors == []


async def test_a_retried_save_after_a_lost_reply_is_not_applied_twice(db: RedisDb) -> None:
    """Re-sending the same save (same save id) reports success and bumps the version once."""
    from core.db.records import SessionMeta
    from core.db.redis import scripts
    from core.db.redis.records import save_args

    keys = SessionKeys(db.key_prefix, "s")
    args = save_args(
        keys,
        0,
        {"n": "1"},
        set(),
        SessionMeta(),
        "",
        save_id="retried",
        ttl_ms=0,
        history_limit=5,
        max_bytes=1000,
        guard_dirty=False,
        verify=False,
    )
    script_keys = [
        keys.state,
        keys.meta,
        keys.hist,
        keys.bucket.dirty,
        keys.bucket.index,
        keys.lease,
        keys.gone,
    ]
    first = await scripts.SAVE(db._clients.get(), script_keys, args)
    again = await scripts.SAVE(db._clients.get(), script_keys, args)
    record = await db.aload("s")
    assert first == again == [1, 1, record.epoch if record else None]
    assert record is not None and record.version == 1
    assert len(await db.ahistory("s")) == 1
