"""Retention: sessions and history expire after their scope's days, in every store,
with an injected clock; enforced by the snapshotter and on demand."""

from __future__ import annotations

import time
from typing import Any

import pytest
import sqlalchemy as sa

from bots.app.retention import retention_policy
from bots.cli.snapshotter import build_snapshotter
from core.db.base import BaseDb
from core.db.redis import RedisDb
from core.db.snapshot import Snapshotter
from core.db.sql.store import SqlDb
from core.governance.budgets.model import Scope, Usage, utc_day
from core.governance.budgets.stores import usage_store
from core.governance.retention import DAY, Retention, RetentionPolicy, RetentionRule, expire
from core.schedule.stores import schedule_store
from tests.db.erasure_fixtures import (
    ANA,
    BOB,
    deployment,
    deployment_kind,
    redis_alone,
    redis_postgres,
    save_run,
    schedule,
    traces,
)

__all__ = ["deployment", "deployment_kind", "redis_alone", "redis_postgres"]  # fixtures

DM = "slack:T1:DANA"
THREAD = "slack:T1:C1:1700.1"
CHANNEL = "slack:T1:C2"

POLICY = RetentionPolicy(
    (
        RetentionRule.prefix("dm", "slack:T1:D", 30),
        RetentionRule("thread", 90, lambda sid: sid.count(":") == 3),
    )
)


def today() -> str:
    """The UTC day usage counters are kept under."""
    return utc_day(time.time())


def days_later(days: float) -> float:
    """A wall clock reading ``days`` from now (no sleeping)."""
    return time.time() + days * DAY


async def _fill(db: BaseDb) -> None:
    for session_id in (DM, THREAD, CHANNEL):
        await save_run(db, session_id, ANA, {"n": 1}, f"{session_id}-1")
        await save_run(db, session_id, BOB, {"n": 2}, f"{session_id}-2")
        await schedule_store(db).aadd(
            schedule(session_id, ANA, f"s-{session_id}"), max_per_session=5
        )
        await usage_store(db).aadd([Scope("session", session_id)], today(), Usage(10, 1))
    if isinstance(db, RedisDb):
        await db.aflush()


def _durable(db: BaseDb) -> SqlDb:
    durable = db.snapshot_to if isinstance(db, RedisDb) else db
    assert isinstance(durable, SqlDb)
    return durable


async def test_an_idle_session_expires_from_every_store(deployment: BaseDb) -> None:
    """40 days on, the DM (30-day rule) is gone from Redis, the durable table, history
    and schedules; the thread (90 days) and the channel (no rule) stay."""
    await _fill(deployment)
    assert await traces(deployment, DM)

    report = await expire(deployment, POLICY, clock=lambda: days_later(40))

    assert report.sessions_expired == [DM] and report.errors == {}
    assert await traces(deployment, DM) == []
    assert await deployment.aload(DM) is None
    assert await schedule_store(deployment).alist(DM) == []
    usage = usage_store(deployment)
    assert (await usage.aread([Scope("session", DM)], today()))[0].tokens == 0
    assert (await usage.aread([Scope("session", THREAD)], today()))[0].tokens == 10
    for kept in (THREAD, CHANNEL):
        assert await deployment.aload(kept) is not None
        assert len(await schedule_store(deployment).alist(kept)) == 1


async def test_each_scope_has_its_own_days(deployment: BaseDb) -> None:
    """100 days on, the thread expires too; a session no rule matches never does."""
    await _fill(deployment)

    report = await expire(deployment, POLICY, clock=lambda: days_later(100))

    assert sorted(report.sessions_expired) == sorted([DM, THREAD])
    assert await deployment.aload(THREAD) is None
    assert await deployment.aload(CHANNEL) is not None
    assert await expire(deployment, POLICY, clock=lambda: days_later(10_000)) is not None
    assert await deployment.aload(CHANNEL) is not None


async def test_nothing_expires_before_its_time(deployment: BaseDb) -> None:
    """Ten days on, nothing is due."""
    await _fill(deployment)

    report = await expire(deployment, POLICY, clock=lambda: days_later(10))

    assert report.sessions_expired == [] and report.history_rows_deleted == 0
    assert all([await deployment.aload(s) for s in (DM, THREAD, CHANNEL)])


async def test_dry_run_reports_and_deletes_nothing(deployment: BaseDb) -> None:
    """--dry-run names what would expire and leaves every store as it was."""
    await _fill(deployment)

    report = await expire(deployment, POLICY, clock=lambda: days_later(40), dry_run=True)

    assert report.dry_run and report.sessions_expired == [DM]
    assert await deployment.aload(DM) is not None
    assert len(await schedule_store(deployment).alist(DM)) == 1


async def test_old_history_rows_of_a_live_session_are_deleted(deployment: BaseDb) -> None:
    """A live thread keeps its current version; stored versions past the cutoff go."""
    await _fill(deployment)
    await save_run(deployment, THREAD, BOB, {"n": 3}, "b3")
    if isinstance(deployment, RedisDb):
        await deployment.aflush()
    durable = _durable(deployment)
    h = durable._tables.history
    old, *newer = sorted(e.version for e in await durable.ahistory(THREAD, limit=50))
    with durable._writer.begin() as conn:  # the oldest stored version is 100 days old
        conn.execute(
            sa.update(h).where(h.c.session_id == THREAD, h.c.version == old).values(saved_at=0.0)
        )

    report = await expire(deployment, POLICY)

    assert report.sessions_expired == [] and report.history_rows_deleted == 1
    versions = sorted(e.version for e in await durable.ahistory(THREAD, limit=50))
    assert versions == newer and newer
    assert await deployment.aload(THREAD) is not None


async def test_a_pass_is_bounded_and_the_next_goes_on(deployment: BaseDb) -> None:
    """A pass looks at batch_size sessions; the following passes reach the rest."""
    for i in range(5):
        await save_run(deployment, f"slack:T1:D{i}", ANA, {"n": i}, f"d{i}")
    if isinstance(deployment, RedisDb):
        await deployment.aflush()
    retention = Retention(deployment, POLICY, batch_size=2, clock=lambda: days_later(40))

    first = await retention.run_pass()
    assert len(first.sessions_expired) == 2 and first.more
    rest = await retention.sweep()

    assert len(rest.sessions_expired) == 3
    assert all([await deployment.aload(f"slack:T1:D{i}") is None for i in range(5)])


async def test_the_snapshotter_runs_retention_every_interval(
    redis_url: str, key_prefix: str
) -> None:
    """Snapshotter(retention=...) runs a pass at start, then once per interval."""
    hot = RedisDb(db_url=redis_url, key_prefix=key_prefix, run_snapshotter=False)
    ticks = [0.0]
    passes: list[int] = []

    async def retention() -> None:
        passes.append(1)

    snapshotter = Snapshotter(
        hot.dirty,
        hot,
        retention=retention,
        retention_interval=60.0,
        clock=lambda: ticks[0],
    )
    try:
        assert await snapshotter.retain_if_due()
        assert not await snapshotter.retain_if_due()
        ticks[0] = 61.0
        assert await snapshotter.retain_if_due()
        assert len(passes) == 2
    finally:
        await hot.aclose()


async def test_the_snapshotter_loop_expires_sessions(redis_postgres: RedisDb) -> None:
    """Snapshotter.run() with a Retention pass deletes an idle DM in every store."""
    deployment = redis_postgres
    assert deployment.snapshot_to is not None
    await _fill(deployment)
    retention = Retention(deployment, POLICY, clock=lambda: days_later(40))
    snapshotter = Snapshotter(deployment.dirty, deployment.snapshot_to)

    async def run_then_stop() -> object:
        report = await retention.run_pass()
        snapshotter.stop()
        return report

    snapshotter.retention = run_then_stop
    await snapshotter.run(interval=0.01)

    assert await traces(deployment, DM) == []
    assert await deployment.aload(THREAD) is not None


async def test_statebot_snapshotter_enforces_the_settings_policy(
    redis_postgres: RedisDb,
) -> None:
    """The standalone snapshotter built from STATEBOT_RETENTION_* expires the idle DM."""
    deployment = redis_postgres
    await _fill(deployment)
    snapshotter = build_snapshotter(
        deployment, retention=retention_policy(dm=30), clock=lambda: days_later(40)
    )

    assert await snapshotter.retain_if_due()

    assert await traces(deployment, DM) == []
    assert await deployment.aload(THREAD) is not None


async def test_no_retention_settings_means_no_retention_pass(redis_postgres: RedisDb) -> None:
    """Without any STATEBOT_RETENTION_* the snapshotter runs no retention at all."""
    snapshotter = build_snapshotter(redis_postgres, retention=retention_policy())
    assert snapshotter.retention is None
    assert not await snapshotter.retain_if_due()


async def test_redis_alone_expires_from_redis(redis_alone: RedisDb) -> None:
    """Without a durable store, Redis's listing index finds the idle DM; it is deleted."""
    await _fill(redis_alone)

    report = await expire(redis_alone, POLICY, clock=lambda: days_later(40))

    assert report.sessions_expired == [DM]
    assert await traces(redis_alone, DM) == []
    assert await redis_alone.aload(THREAD) is not None


async def test_a_run_landing_before_the_delete_keeps_the_session(
    deployment: BaseDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session used between the idle check and the delete is not expired (nor its run lost)."""
    from core.governance import sessions

    await _fill(deployment)
    real_delete = sessions.delete_session

    async def run_lands_first(db: BaseDb, session_id: str, **kwargs: Any) -> None:
        await save_run(db, session_id, BOB, {"n": 3}, f"{session_id}-late")
        await real_delete(db, session_id, **kwargs)

    monkeypatch.setattr(sessions, "delete_session", run_lands_first)
    report = await expire(deployment, POLICY, clock=lambda: days_later(40))

    assert report.sessions_expired == []
    kept = await deployment.aload(DM)
    assert kept is not None and kept.state == {"n": 3}
