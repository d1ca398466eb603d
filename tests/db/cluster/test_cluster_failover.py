"""kill -9 of a primary while sessions are written: the replica takes over, nothing
acknowledged is lost, and every session it serves is checked against the durable store.

The test starts its own cluster (it kills a node), writes turns (``open_run`` then a
save that releases the lease) to sessions on every primary, kills the primary serving
one of them mid-write, and keeps writing through the failover.

* A turn is *acknowledged* when its save returned; one that raised is unacknowledged
  (it may or may not have been applied: the node died with the reply in flight).
* After the failover every acknowledged item is in its session, once, in order.
* The promoted replica is a new Redis incarnation (another run id): each session it
  holds is compared with its durable copy before it is served (``repair.py``), which
  the test sees as the session's ``ep`` stamp moving to the new run id.
* Sessions keep working: every session takes more turns after the failover, and a
  final drain leaves the durable store equal to Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.db.codec import encode_delta
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.redis.keys import SessionKeys
from core.exceptions import StoreError
from tests.db.cluster.conftest import raw_cluster
from tests.db.cluster.harness import LocalCluster, command

pytestmark = pytest.mark.slow

SESSIONS = 40
#: turns each session takes once the failover is over
AFTER = 5


@pytest.fixture(scope="module")
def own_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A cluster of this module's own: the test kills one of its primaries."""
    cluster = LocalCluster(Path(tmp_path_factory.mktemp("failover-cluster")))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def _turn(store: RedisDb, session_id: str, item: int) -> bool:
    """Append ``item`` to the session's list in one run; True once the save returned."""
    try:
        async with store.open_run(session_id, timeout=10) as run:
            items = list(run.record.state.get("items", [])) if run.record else []
            await store.asave(
                session_id,
                expected_version=run.record.version if run.record else 0,
                changed=encode_delta({"items": [*items, item]}),
                lease=run.lease,
                release=True,
            )
        return True
    except StoreError:
        return False


def _run_id(port: int) -> str:
    info = command(port, "info", "server")
    return next(line.split(":", 1)[1].strip() for line in info.splitlines() if "run_id:" in line)


async def test_primary_killed_mid_write_loses_nothing_acknowledged(
    own_cluster: LocalCluster, key_prefix: str
) -> None:
    """kill -9 of a primary mid-write: acknowledged items stay, sessions go on working."""
    durable = InMemoryDb()
    store = RedisDb(
        db_url=own_cluster.url,
        key_prefix=key_prefix,
        snapshot_to=durable,
        run_snapshotter=False,
        lock_ttl=2.0,  # a lease whose holder lost its node frees the session soon
    )
    names = [f"s{n}" for n in range(SESSIONS)]
    idle = [f"idle{n}" for n in range(SESSIONS)]  # written before the kill, then left alone
    acked: dict[str, list[int]] = {name: [] for name in names}
    unacked: dict[str, list[int]] = {name: [] for name in names}
    failed_over = asyncio.Event()
    victim_key = SessionKeys(key_prefix, names[0]).meta
    victim = own_cluster.primary_of(victim_key)
    replica = own_cluster.replica_of(victim)

    async def writer(name: str) -> None:
        item, after = 0, 0
        while after < AFTER:
            ok = await _turn(store, name, item)
            (acked if ok else unacked)[name].append(item)
            item += 1
            if failed_over.is_set() and ok:
                after += 1
            await asyncio.sleep(0.01 if ok else 0.2)

    try:
        for name in names:  # every session exists, also in the durable store
            assert await _turn(store, name, -1)
            acked[name].append(-1)
        for name in idle:
            assert await _turn(store, name, 0)
        await store.aflush()
        writers = [asyncio.create_task(writer(name)) for name in names]
        await asyncio.sleep(0.5)
        await asyncio.to_thread(victim.kill)
        await asyncio.to_thread(own_cluster.wait_promoted, replica)
        failed_over.set()
        await asyncio.wait_for(asyncio.gather(*writers), timeout=120)

        new_run_id = _run_id(replica.port)

        def on_replica(name: str) -> bool:
            return own_cluster.primary_of(SessionKeys(key_prefix, name).meta) is replica

        moved = [n for n in names if on_replica(n)]
        assert moved, "some sessions lived on the killed primary"
        for name in names:
            record = await store.aload(name)
            assert record is not None
            items = record.state["items"]
            assert items == sorted(set(items)), f"{name}: duplicated or reordered {items}"
            missing = set(acked[name]) - set(items)
            assert not missing, f"{name}: acknowledged items lost: {sorted(missing)}"
            assert set(items) <= set(acked[name]) | set(unacked[name])
        assert any(unacked[name] for name in moved), "writes were in flight at the kill"
        raw = raw_cluster(own_cluster.url)
        try:
            for name in moved:  # stamped by the new incarnation by now
                assert await raw.hget(SessionKeys(key_prefix, name).meta, "ep") == new_run_id
            quiet = [n for n in idle if on_replica(n)]
            assert quiet, "some idle sessions lived on the killed primary"
            for name in quiet:  # still the old primary's stamp: checked on first load
                meta = SessionKeys(key_prefix, name).meta
                assert await raw.hget(meta, "ep") != new_run_id
                record = await store.aload(name)
                assert record is not None and record.state == {"items": [0]}
                assert await raw.hget(meta, "ep") == new_run_id
        finally:
            await raw.aclose()
        await store.aflush()
        for name in names:
            hot, cold = await store.aload(name), await durable.aload(name)
            assert hot is not None and cold is not None
            assert (cold.version, cold.state) == (hot.version, hot.state)
    finally:
        await store.aclose()
