"""Deletes that stay deleted, versions that are never reused, write-through that tells the truth."""

from __future__ import annotations

from pathlib import Path

from core.db.codec import encode_delta as texts
from core.db.records import SessionRecord
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sqlite import SqliteDb
from core.exceptions import OutcomeUnknownError


async def test_reset_racing_a_snapshot_does_not_bring_old_state_back(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """A delete lands while a snapshot is in flight: the next run starts fresh, durably too."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    hot = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    await hot.asave("s", expected_version=0, changed=texts({"secret": "old"}))
    await hot.asave("s", expected_version=1, changed=texts({"secret": "older"}))
    seen: list[SessionRecord | None] = []

    async def reset_then_run(batch: list[SessionRecord]) -> None:
        # the snapshot of version 2 is committed; now the admin resets, a user writes
        assert await hot.adelete("s")
        seen.append(await hot.aload("s"))

    await Snapshotter(hot.dirty, durable, after_commit=reset_then_run).drain_once()
    assert seen == [None]
    assert await durable.aload("s") is None
    # the re-created session continues after the deleted version: no version reused
    assert await hot.asave("s", expected_version=0, changed=texts({"fresh": True})) == 3
    await hot.aflush()
    copy = await durable.aload("s")
    assert copy is not None and copy.state == {"fresh": True} and copy.version == 3
    await hot.aclose()
    await durable.aclose()


class LostCommitReply(SqliteDb):
    """Commits the snapshot, then loses the reply ``lost`` times (outcome unknown)."""

    lost = 1

    async def aupsert_snapshot(self, record: SessionRecord) -> bool:
        written = await super().aupsert_snapshot(record)
        if self.lost > 0:
            self.lost -= 1
            raise OutcomeUnknownError("connection lost during COMMIT")
        return written


async def test_write_through_with_an_unknown_commit_is_confirmed_not_repeated(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """The commit's reply is lost: the retry finds it applied; success, one history row."""
    durable = LostCommitReply(db_file=tmp_path / "d.db")
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, write_through=True)
    assert await hot.asave("s", expected_version=0, changed=texts({"n": 1})) == 1
    copy = await durable.aload("s")
    assert copy is not None and copy.state == {"n": 1}
    assert [e.version for e in await durable.ahistory("s")] == [1]
    assert await hot.dirty.count() == 0
    await hot.aclose()
    await durable.aclose()


async def test_write_through_that_cannot_confirm_reports_the_applied_save(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Never confirmed: the save is applied (not undone), stays dirty, and is copied later."""
    durable = LostCommitReply(db_file=tmp_path / "d.db")
    durable.lost = 100
    hot = RedisDb(
        db_url=redis_url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        write_through=True,
        run_snapshotter=False,
    )
    assert await hot.asave("s", expected_version=0, changed=texts({"n": 1})) == 1
    record = await hot.aload("s")
    assert record is not None and record.state == {"n": 1}
    assert await hot.dirty.count() == 1
    durable.lost = 0
    assert await hot.aflush() == 1
    assert [e.version for e in await durable.ahistory("s")] == [1]
    await hot.aclose()
    await durable.aclose()


async def test_session_data_reaches_the_durable_store_and_comes_back(
    redis_url: str, key_prefix: str, tmp_path: Path
) -> None:
    """Run history saved in Redis is snapshotted and read back with the state."""
    durable = SqliteDb(db_file=tmp_path / "d.db")
    hot = RedisDb(
        db_url=redis_url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    data = '{"runs":[{"run_id":"r1"}]}'
    await hot.asave("s", expected_version=0, changed=texts({"n": 1}), data=data)
    await hot.aflush()
    copy = await durable.aload("s")
    assert copy is not None and copy.data == data
    await hot._clients.get().delete(
        *[k async for k in hot._clients.get().scan_iter(match=f"*{key_prefix}*")]
    )
    record = await hot.aload("s")  # read back from the durable store
    assert record is not None and record.data == data and record.state == {"n": 1}
    await hot.aclose()
    await durable.aclose()
