"""Rekey reaches the kept-aside copy of a reused version, too.

When Redis comes back holding a version the durable store has from another save, the
durable copy wins and the Redis one is kept under ``:conflict`` (``repair.py``), its
values sealed as they were. After a rotation nothing may stay under the old key, that
copy included.
"""

from __future__ import annotations

import json
from pathlib import Path

import redis.asyncio as aioredis

from core.db.cipher import StateCipher
from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.governance.rekey import rekey
from tests.db.crash.conftest import RedisServer
from tests.db.test_encryption import K1, K2, SECRET, redis_texts
from tests.governance.test_rekey import NEW, OLD


async def test_rekey_seals_the_conflict_copy_again(own_redis: RedisServer, tmp_path: Path) -> None:
    """A conflict copy made under the old key holds only the new key after rekey."""
    old_ring = StateCipher([K1])
    durable = SqliteDb(db_file=tmp_path / "d.db", cipher=old_ring)
    hot = RedisDb(own_redis.url, snapshot_to=durable, cipher=old_ring, run_snapshotter=False)
    await hot.asave("s", expected_version=0, changed=texts({"card": SECRET}))
    own_redis.save_rdb()  # an RDB holding version 1 from this save, never snapshotted
    rdb, aside = tmp_path / "dump.rdb", tmp_path / "aside.rdb"
    own_redis.kill()
    rdb.rename(aside)
    own_redis.start()  # empty: version 1 is made again, by another save, and snapshotted
    await hot.asave("s", expected_version=0, changed=texts({"card": "other"}))
    await hot.aflush()
    own_redis.kill()
    aside.rename(rdb)
    own_redis.start()  # back from the RDB: version 1 names two contents
    record = await hot.aload("s")
    assert record is not None and record.state == {"card": "other"}  # the durable one
    raw = aioredis.Redis.from_url(own_redis.url, decode_responses=True)
    try:
        conflict = await raw.keys("*:conflict")
        assert len(conflict) == 1 and f"$sb1:{OLD}:" in (await raw.get(conflict[0]) or "")
        await hot.aclose()
        await durable.aclose()

        ring = StateCipher([K2, K1])
        durable = SqliteDb(db_file=tmp_path / "d.db", cipher=ring)
        hot = RedisDb(own_redis.url, snapshot_to=durable, cipher=ring, run_snapshotter=False)
        report = await rekey(hot)
        assert report.failed == []
        blob = "\n".join(await redis_texts(raw, "statebot:"))
        assert f"$sb1:{OLD}:" not in blob and f"$sb1:{NEW}:" in blob and SECRET not in blob
        kept = json.loads(await raw.get(conflict[0]) or "{}")
        sealed = json.dumps(kept["state"]["card"])  # the stored text, decoded once
        assert json.loads(StateCipher([K2]).open(sealed, "s", "card")) == SECRET
    finally:
        await raw.aclose()
        await hot.aclose()
        await durable.aclose()
