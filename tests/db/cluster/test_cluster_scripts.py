"""Scripts on a cluster: sent by SHA to the node serving their keys, reloaded where lost.

A node that never saw a script (a promoted replica, a restarted node, SCRIPT FLUSH)
answers NOSCRIPT; the store sends the full script once to that same node, and a
batch reloads its scripts on every primary, then runs again.
"""

from __future__ import annotations

import pytest
from redis.asyncio.cluster import RedisCluster

from core.db.codec import encode_delta as texts
from core.db.redis import RedisDb
from tests.db.cluster.conftest import raw_cluster

pytestmark = pytest.mark.slow


async def _forget_scripts(url: str) -> None:
    raw = raw_cluster(url)
    try:
        await raw.execute_command("SCRIPT FLUSH", target_nodes=RedisCluster.ALL_NODES)
    finally:
        await raw.aclose()


async def test_every_operation_works_after_the_nodes_forget_their_scripts(
    redis_url: str, key_prefix: str
) -> None:
    """Runs, loads, saves and batched reads succeed after SCRIPT FLUSH on every node."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    try:
        for n in range(20):
            await db.asave(f"s{n}", expected_version=0, changed=texts({"n": n}))
        await _forget_scripts(redis_url)
        async with db.open_run("s0", timeout=5) as run:
            assert run.record is not None and run.record.state == {"n": 0}
            await db.asave(
                "s0", expected_version=1, changed=texts({"n": 100}), lease=run.lease, release=True
            )
        await _forget_scripts(redis_url)
        record = await db.aload("s0")
        assert record is not None and (record.version, record.state) == (2, {"n": 100})
        await _forget_scripts(redis_url)
        batch = {r.session_id: r.state for r in await db.dirty.abatch(100)}
        assert batch == {f"s{n}": {"n": 100 if n == 0 else n} for n in range(20)}
        await _forget_scripts(redis_url)
        cleaned = await db.dirty.amark_clean([r for r in await db.dirty.abatch(100)])
        assert {c.outcome for c in cleaned} == {"clean"} and await db.dirty.count() == 0
    finally:
        await db.aclose()
