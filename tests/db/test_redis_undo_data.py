"""A save keeps the session's previous data in its undo record only when it may be undone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from core.db.codec import encode_delta as texts
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.db.sqlite import SqliteDb
from core.exceptions import StoreUnavailableError

FIRST = '{"name":"first","runs":[]}'
SECOND = '{"name":"second","runs":[]}'


async def _undo_records(redis_url: str, keys: SessionKeys) -> list[dict[str, object]]:
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        return [json.loads(raw) for raw in await client.lrange(keys.hist, 0, -1)]
    finally:
        await client.aclose()


async def test_a_save_not_written_through_keeps_no_copy_of_the_data(
    redis_url: str, key_prefix: str
) -> None:
    """Only write-through undoes a save: other saves do not copy the whole previous data
    (run history, audit trail) into Redis's undo records on every save."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    await db.asave("s", expected_version=0, changed=texts({"n": 1}), data=FIRST)
    await db.asave("s", expected_version=1, changed=texts({"n": 2}), data=SECOND)
    undo = await _undo_records(redis_url, SessionKeys(key_prefix, "s"))
    assert len(undo) == 2 and all("d" not in item for item in undo)
    record = await db.aload("s")
    assert record is not None and record.data == SECOND
    await db.aclose()


class RefusingDurable(SqliteDb):
    """A durable store that refuses every write after the first ``accept`` ones."""

    accept = 1

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        if self.accept <= 0:
            raise RuntimeError("disk full")
        self.accept -= 1
        return await super().aupsert_snapshot(record)


async def test_a_write_through_save_undone_restores_the_data(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The durable store refuses a written-through save: Redis is back at the previous
    state and data, and the save is reported as not written."""
    durable = RefusingDurable(db_file=tmp_path / "d.db")
    db = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        write_through=True,
        run_snapshotter=False,
    )
    await db.asave("s", expected_version=0, changed=texts({"n": 1}), data=FIRST)
    undo = await _undo_records(redis_url, SessionKeys(key_prefix, "s"))
    assert undo[0].get("n") == 1  # a new session's undo deletes it: no data needed
    with pytest.raises(StoreUnavailableError, match="nothing was written"):
        await db.asave("s", expected_version=1, changed=texts({"n": 2}), data=SECOND)
    record = await db.aload("s")
    assert record is not None
    assert (record.version, record.state, record.data) == (1, {"n": 1}, FIRST)
    await db.aclose()
    await durable.aclose()
