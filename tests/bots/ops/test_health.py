"""The shared health server: /healthz, /readyz (200 or 503 with what is down) and /metrics."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bots.adapters.slack.server import SlackHttpServer, build_slack_app
from bots.ops.flags import MemoryFlags
from bots.ops.health import HealthServer, Probe, store_probe
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from tests.bots.conftest import ServiceFactory, command

DOWN_REDIS = "redis://127.0.0.1:1/0"  # port 1: nothing listens, connection refused


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """One client session for the test."""
    async with aiohttp.ClientSession() as session:
        yield session


async def _get(http: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with http.get(url) as resp:
        return resp.status, await resp.text()


async def _probe_once(
    http: aiohttp.ClientSession, probe: Probe, path: str, **kw: Any
) -> tuple[int, str]:
    """Start a HealthServer over ``probe``, GET ``path`` once, stop it."""
    async with HealthServer(probe, host="127.0.0.1", port=0, **kw) as server:
        return await _get(http, f"http://127.0.0.1:{server.port}{path}")


def _redis(url: str, prefix: str) -> RedisDb:
    return RedisDb(db_url=url, key_prefix=prefix, snapshot_to=InMemoryDb(), run_snapshotter=False)


async def test_healthz_answers_ok(http: aiohttp.ClientSession) -> None:
    """/healthz says the process is alive without touching any store."""
    async with HealthServer(store_probe(InMemoryDb()), host="127.0.0.1", port=0) as server:
        status, body = await _get(http, f"http://127.0.0.1:{server.port}/healthz")
    assert (status, body) == (200, "ok")


async def test_readyz_is_200_with_backlog_when_redis_and_durable_answer(
    http: aiohttp.ClientSession, redis_url: str, key_prefix: str
) -> None:
    """/readyz answers 200 with the snapshot backlog when Redis and the durable store answer."""
    db = _redis(redis_url, key_prefix)
    try:
        status, body = await _probe_once(http, store_probe(db), "/readyz")
    finally:
        await db.aclose()
    report = json.loads(body)
    assert status == 200
    assert report["reachable"] is True
    assert report["dirty"] == 0 and report["quarantined"] == 0


async def test_readyz_is_503_saying_redis_is_down(http: aiohttp.ClientSession) -> None:
    """/readyz answers 503 with a JSON body naming the unreachable Redis."""
    db = _redis(DOWN_REDIS, "t:")
    try:
        status, body = await _probe_once(http, store_probe(db), "/readyz")
    finally:
        await db.aclose()
    report = json.loads(body)
    assert status == 503
    assert report["reachable"] is False
    assert "127.0.0.1:1" in report["error"]


async def test_readyz_is_503_when_the_probe_hangs(http: aiohttp.ClientSession) -> None:
    """A store that never answers makes /readyz 503 after the probe timeout, not hang."""

    async def hanging() -> dict[str, Any]:
        await asyncio.sleep(60)
        return {"reachable": True}

    status, body = await _probe_once(http, hanging, "/readyz", timeout=0.05)
    report = json.loads(body)
    assert status == 503
    assert "no answer within" in report["error"]


async def test_metrics_expose_runs_and_store_gauges_after_a_run(
    http: aiohttp.ClientSession, make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """After a chat run, /metrics shows it counted and timed, plus the store gauges."""
    service = make_service(None)
    await service.handle_command(command("taskboard", 'add "Write the report"'))
    status, text = await _probe_once(http, store_probe(db), "/metrics")
    assert status == 200
    assert 'statebot_runs_total{agent="taskboard",kind="command",outcome="ok"}' in text
    assert 'statebot_run_seconds_count{agent="taskboard",kind="command"}' in text
    for name in (
        "statebot_tool_errors_total",
        "statebot_dirty_sessions",
        "statebot_quarantined_sessions",
        "statebot_snapshots_written_total",
    ):
        assert f"# TYPE {name.removesuffix('_total')}" in text
    assert "statebot_store_up 1.0" in text


async def test_slack_http_mode_serves_readiness_and_metrics(
    http: aiohttp.ClientSession, make_service: ServiceFactory, db: InMemoryDb
) -> None:
    """Slack HTTP mode serves /healthz, /readyz and /metrics beside its events endpoint."""
    from bots.adapters.slack.send import web_client

    bolt = build_slack_app(
        service=make_service(None),
        client=web_client("xoxb-test", "http://127.0.0.1:1/api/"),
        flags=MemoryFlags(),
        signing_secret="secret",
    )
    server = SlackHttpServer(bolt, host="127.0.0.1", port=0, probe=store_probe(db))
    await server.start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        paths = ("/healthz", "/readyz", "/metrics")
        answers = [(await _get(http, base + path))[0] for path in paths]
    finally:
        await server.stop()
    assert answers == [200, 200, 200]
