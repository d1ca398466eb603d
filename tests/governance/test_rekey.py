"""Key rotation: add a key first, rekey, drop the old key, and everything still loads."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from core.crypto import key_id
from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.sql.store import SqlDb
from core.exceptions import StateDecryptError
from core.governance.rekey import rekey
from tests.db.test_encryption import (
    DATA,
    K1,
    K2,
    SECRET,
    DurableFactory,
    durable_factory,
    redis_texts,
    save_secret,
    sql_rows,
)

__all__ = ["durable_factory"]  # the fixture, shared with test_encryption

OLD, NEW = key_id(K1), key_id(K2)


def assert_only_new_key(rows: list[str]) -> None:
    blob = "\n".join(rows)
    assert SECRET not in blob
    assert f"$sb1:{NEW}:" in blob
    assert f"$sb1:{OLD}:" not in blob


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A plain client to look at what RedisDb wrote."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_sql_rotation_rewrites_values_data_and_history(
    durable_factory: DurableFactory,
) -> None:
    """SQL: rekey under [new, old] leaves only the new key id; [new] alone then loads all."""
    first = durable_factory(StateCipher([K1]))
    await save_secret(first)
    await first.asave("s2", expected_version=0, changed=texts({"n": 1}))
    await first.aclose()

    both = durable_factory(StateCipher([K2, K1]))
    report = await rekey(both)
    (counts,) = report.passes
    assert report.primary_id == NEW and report.failed == []
    assert (counts.sessions, counts.rewritten, counts.values, counts.data) == (2, 2, 3, 1)
    assert counts.history == 3  # s1 v1, s1 v2, s2 v1
    assert_only_new_key(sql_rows(both))
    again = await rekey(both)
    assert again.rewritten == 0  # idempotent
    await both.aclose()

    new_only = durable_factory(StateCipher([K2]))
    try:
        record = await new_only.aload("s1")
        assert record is not None
        assert record.state == {"card": SECRET, "notes": ["a", SECRET]}
        assert record.data == DATA
        assert record.version == 2  # rewritten in place: no version added
        assert [e.state["notes"] for e in await new_only.ahistory("s1")] == [["a", SECRET], ["a"]]
    finally:
        await new_only.aclose()


async def test_a_missing_key_is_a_clear_error_naming_it(durable_factory: DurableFactory) -> None:
    """Dropping the old key before rekey: load fails naming its id, and rekey reports it."""
    first = durable_factory(StateCipher([K1]))
    await save_secret(first)
    await first.aclose()
    new_only = durable_factory(StateCipher([K2]))
    try:
        with pytest.raises(StateDecryptError, match=OLD) as caught:
            await new_only.aload("s1")
        assert "not among the configured keys" in str(caught.value)
        with pytest.raises(StateDecryptError, match=OLD):
            await new_only.ahistory("s1")
        report = await rekey(new_only)
        assert report.rewritten == 0
        assert report.failed and all(OLD in f for f in report.failed)
    finally:
        await new_only.aclose()


async def test_rekey_seals_plaintext_written_before_encryption(
    durable_factory: DurableFactory,
) -> None:
    """Rows stored in the clear are sealed by rekey (state, data and history)."""
    plain = durable_factory(None)
    await save_secret(plain)
    await plain.aclose()
    db = durable_factory(StateCipher([K2]))
    try:
        report = await rekey(db)
        assert report.passes[0].rewritten == 1
        assert_only_new_key(sql_rows(db))
        record = await db.aload("s1")
        assert record is not None and record.state["card"] == SECRET and record.data == DATA
    finally:
        await db.aclose()


async def test_redis_rotation_rewrites_hash_data_undo_and_durable(
    redis_url: str,
    key_prefix: str,
    durable_factory: DurableFactory,
    raw: aioredis.Redis,
) -> None:
    """RedisDb: rekey rewrites Redis (fields, data, undo records) and the durable store."""
    old = StateCipher([K1])
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable_factory(old), cipher=old
    )
    await save_secret(db)
    await db.asave("s2", expected_version=0, changed=texts({"n": SECRET}))
    await db.aclose()  # flushes: both sessions in Redis and in the durable store

    both = StateCipher([K2, K1])
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable_factory(both), cipher=both
    )
    report = await rekey(db)
    redis_pass, durable_pass = report.passes
    assert report.failed == []
    assert (redis_pass.sessions, redis_pass.values, redis_pass.data) == (2, 3, 1)
    assert redis_pass.history >= 1  # s1's second undo record held the old "notes"
    assert durable_pass.values == 3
    assert durable_pass.history == 2  # snapshotted once at close: s1 v2 and s2 v1
    assert_only_new_key(await redis_texts(raw, key_prefix))
    assert isinstance(db.snapshot_to, SqlDb)
    assert_only_new_key(sql_rows(db.snapshot_to))
    assert (await rekey(db)).rewritten == 0
    await db.aclose()

    new = StateCipher([K2])
    db = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable_factory(new), cipher=new
    )
    try:
        record = await db.aload("s1")
        assert record is not None and record.version == 2
        assert record.state == {"card": SECRET, "notes": ["a", SECRET]} and record.data == DATA
        assert [e.state["notes"] for e in await db.ahistory("s1")] == [["a", SECRET], ["a"]]
        s2 = await db.aload("s2")
        assert s2 is not None and s2.state == {"n": SECRET}
    finally:
        await db.aclose()


async def test_rekey_refuses_stores_without_keys(durable_factory: DurableFactory) -> None:
    """Nothing is encrypted without a cipher, and process memory needs none: both refused."""
    db = durable_factory(None)
    try:
        with pytest.raises(ValueError, match="STATEBOT_STATE_KEYS is empty"):
            await rekey(db)
    finally:
        await db.aclose()
    with pytest.raises(ValueError, match="process memory"):
        await rekey(InMemoryDb())
