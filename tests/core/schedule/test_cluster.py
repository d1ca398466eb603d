"""Schedules on a real local Redis Cluster (3 primaries + 3 replicas): every operation
stays inside one hash slot, and a lost index is rebuilt there too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.schedule import CancelOutcome, Scheduler, Schedules, schedule_store
from core.schedule.layered import LayeredScheduleStore
from tests.core.schedule.conftest import FakeClock
from tests.core.schedule.helpers import AgentFirer
from tests.db.cluster.harness import LocalCluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """A cluster for this module's tests, killed afterwards."""
    started = LocalCluster(Path(tmp_path_factory.mktemp("schedule-cluster")))
    try:
        started.start()
        yield started
    finally:
        started.stop()


@pytest.mark.slow
async def test_schedules_fire_cancel_and_rebuild_on_a_cluster(
    cluster: LocalCluster, tmp_path: Path, key_prefix: str
) -> None:
    """Add, cancel, lose the index, fire: the same behaviour as on one Redis."""
    cluster.wait_ok()
    durable = SqliteDb(db_file=tmp_path / "durable.db")
    db = RedisDb(
        db_url=cluster.url, key_prefix=key_prefix, snapshot_to=durable, run_snapshotter=False
    )
    try:
        store = schedule_store(db)
        assert isinstance(store, LayeredScheduleStore)
        clock = FakeClock()
        made = [
            await Schedules(store, session_id=f"slack:T1:C{n}:1.0", clock=clock).aadd(
                in_=5, input=f"#{n}"
            )
            for n in range(12)
        ]
        cancelled = await Schedules(store, session_id=made[0].session_id).acancel(
            made[0].schedule_id
        )
        assert cancelled == CancelOutcome.CANCELLED
        for item in made[1:6]:  # the index loses some entries, and its marker
            await store.hot.amirror(item.schedule_id, item.session_id, None)
        await db._clients.get().delete(f"{key_prefix}sched:indexed")
        clock.advance(5)
        fire = AgentFirer(db)
        assert await Scheduler(db, fire, clock=clock).run_once() == 11
        assert {f.schedule.schedule_id for f in fire.firings} == {s.schedule_id for s in made[1:]}
    finally:
        await db.aclose()
        await durable.aclose()
