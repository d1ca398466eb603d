"""``statebot snapshotter``: copy dirty sessions from Redis to the durable store.

Run one next to several bot processes (a Procfile line); bots then pass
``run_snapshotter=False`` or simply let both run, which is safe: upserts are
version-guarded and a session leaves the dirty set only if its version did not move.
With ``STATEBOT_RETENTION_*_DAYS`` set it also enforces retention, one bounded pass
every ``--retention-interval`` seconds (docs/erasure.md). Its stores are built by
``bots.app.build.build_store``, as the bots build theirs: with ``STATEBOT_STATE_KEYS`` both
carry the key ring, so retention can read the sealed sessions it checks.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import click

from bots.app.cli_format import HELP_OPTIONS, plural
from bots.app.retention import policy_from_settings, retention_pass
from bots.ops.health import serving, store_probe
from bots.ops.logging import configure_logging
from bots.ops.metrics import SnapshotThroughput
from bots.ops.startup import check_stores, one_line
from core.db.redis import RedisDb
from core.db.snapshot import DEFAULT_BATCH_SIZE, DEFAULT_RETENTION_INTERVAL, Snapshotter
from core.governance.retention import RetentionPolicy
from core.governance.sessions import health
from core.utils.log import log_info

if TYPE_CHECKING:
    from bots.settings import Settings


def snapshotter_store(settings: Settings, *, key_prefix: str = "statebot:") -> RedisDb:
    """The RedisDb of ``settings.redis_url`` over the durable store of
    ``settings.statebot_db_url``, built by ``bots.app.build.build_store`` (the bots' one rule,
    key ring included); it does not snapshot by itself: the snapshotter drives it."""
    from bots.app.build import build_store

    if not settings.redis_url:
        raise ValueError("no Redis URL: pass --redis-url or set REDIS_URL")
    # snapshot_to lets the health probe see the durable store and the backlog, and
    # retention delete a session from both stores together
    store = build_store(
        settings.model_copy(update={"statebot_run_snapshotter": False}), key_prefix=key_prefix
    )
    assert store.hot  # a Redis URL is set: build_store's rule gives the RedisDb
    return cast(RedisDb, store)


def build_snapshotter(
    hot: RedisDb,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    retention: RetentionPolicy | None = None,
    retention_interval: float = DEFAULT_RETENTION_INTERVAL,
    clock: Callable[[], float] = time.time,
) -> Snapshotter:
    """The snapshotter of ``hot`` (a RedisDb with its durable store), enforcing
    ``retention`` every ``retention_interval`` seconds when it has rules.

    Retention works on ``hot``, so an expired session leaves Redis, the durable store,
    its history and its schedules together (``admin.delete_session``).
    """
    if hot.snapshot_to is None:
        raise ValueError("the snapshotter needs a RedisDb with a durable store (snapshot_to)")
    return Snapshotter(
        hot.dirty,
        hot.snapshot_to,
        batch_size=batch_size,
        retention=retention_pass(hot, retention, batch_size=batch_size, clock=clock),
        retention_interval=retention_interval,
    )


async def run_snapshotter(
    hot: RedisDb,
    *,
    interval: float = 1.0,
    batch_size: int = DEFAULT_BATCH_SIZE,
    once: bool = False,
    health_port: int | None = None,
    retention: RetentionPolicy | None = None,
    retention_interval: float = DEFAULT_RETENTION_INTERVAL,
) -> int:
    """Drain ``hot`` (:func:`snapshotter_store`) until stopped (SIGTERM/SIGINT) or, with
    ``once``, until nothing is dirty; closes both its stores.

    With ``health_port``, serves /healthz, /readyz and /metrics while it runs. With a
    ``retention`` policy, a retention pass runs every ``retention_interval`` seconds
    (not with ``once``). Returns how many sessions were retired from the dirty sets.
    """
    snapshotter = build_snapshotter(
        hot, batch_size=batch_size, retention=retention, retention_interval=retention_interval
    )
    try:
        await check_stores(hot)  # both stores down at start: one line, not a retry loop
        if once:
            return await snapshotter.drain()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, snapshotter.stop)
        throughput = SnapshotThroughput(snapshotter)
        async with serving(health_port, store_probe(hot), before_scrape=throughput):
            log_info("snapshotter started", redis=hot.location, interval=interval)
            await snapshotter.run(interval)
            # stopping: copy what is still dirty, so a deploy leaves nothing behind
            return await snapshotter.drain()
    finally:
        await _close(hot)


async def snapshot_status(hot: RedisDb) -> dict[str, Any]:
    """``core.governance.sessions.health`` of the deployment: reachable, dirty and quarantined;
    closes both stores of ``hot``."""
    try:
        return await health(hot)
    finally:
        await _close(hot)


async def _close(hot: RedisDb) -> None:
    try:
        await hot.aclose()
    finally:
        if hot.snapshot_to is not None:
            await hot.snapshot_to.aclose()


@click.command("snapshotter", context_settings=HELP_OPTIONS)
@click.option("--redis-url", help="Redis holding the sessions [env REDIS_URL]")
@click.option("--db-url", help="durable store, sqlite:///… or postgresql://… [env STATEBOT_DB_URL]")
@click.option(
    "--key-prefix",
    default="statebot:",
    show_default=True,
    help="prefix of the bots' Redis keys (the same as theirs)",
)
@click.option("--interval", default=1.0, show_default=True, help="seconds between idle passes")
@click.option(
    "--batch-size",
    default=DEFAULT_BATCH_SIZE,
    show_default=True,
    help="sessions copied per durable write",
)
@click.option(
    "--retention-interval",
    default=DEFAULT_RETENTION_INTERVAL,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="seconds between retention passes (STATEBOT_RETENTION_*_DAYS; none set: no passes)",
)
@click.option("--once", is_flag=True, help="drain what is dirty now, then exit")
@click.option(
    "--status",
    is_flag=True,
    help="print how many sessions wait for a snapshot and which are quarantined, then exit",
)
def snapshotter(
    redis_url: str | None,
    db_url: str | None,
    key_prefix: str,
    interval: float,
    batch_size: int,
    retention_interval: float,
    once: bool,
    status: bool,
) -> None:
    """Copy changed sessions from Redis to SQLite/PostgreSQL in batches."""
    from bots.settings import Settings

    settings = Settings()
    # the same log lines as the bots: STATEBOT_LOG_FORMAT (json off a terminal), _LEVEL
    configure_logging(settings.statebot_log_format or "json", level=settings.statebot_log_level)
    settings = settings.model_copy(
        update={
            "redis_url": redis_url or settings.redis_url,
            "statebot_db_url": db_url or settings.statebot_db_url,
        }
    )
    if not settings.redis_url:
        raise click.UsageError("no Redis URL: pass --redis-url or set REDIS_URL")
    try:
        hot = snapshotter_store(settings, key_prefix=key_prefix)
    except Exception as exc:  # a malformed URL or key prefix: one line, no traceback
        raise click.ClickException(one_line(exc)) from exc
    if status:
        try:
            report = asyncio.run(snapshot_status(hot))
        except Exception as exc:
            raise click.ClickException(str(exc)) from exc
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    try:
        count = asyncio.run(
            run_snapshotter(
                hot,
                interval=interval,
                batch_size=batch_size,
                once=once,
                health_port=settings.statebot_health_port,
                retention=policy_from_settings(settings),
                retention_interval=retention_interval,
            )
        )
    except Exception as exc:
        raise click.ClickException(one_line(exc)) from exc
    click.echo(f"snapshotted {plural(count, 'session')}")
