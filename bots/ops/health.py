"""``/healthz``, ``/readyz`` and ``/metrics``: one set of routes for every process type.

Slack HTTP mode adds the routes to its own server (:func:`add_routes`); Socket Mode,
Discord and the snapshotter have no HTTP server of their own and start a
:class:`HealthServer` on ``STATEBOT_HEALTH_PORT``.

- ``/healthz``: the process is alive and its event loop answers (always 200).
- ``/readyz``: Redis and the durable store answer (``core.governance.sessions.health``); 503 with
  the JSON report, saying what is down, when they do not.
- ``/metrics``: Prometheus text; the store gauges are refreshed on each scrape.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import structlog
from aiohttp import web

from bots.ops import metrics
from core.db.base import BaseDb
from core.governance.sessions import health

#: what readiness asks: a ``core.governance.sessions.health`` style report
Probe = Callable[[], Awaitable[dict[str, Any]]]
#: a probe slower than this counts as down: a hung store must not hang the kubelet
PROBE_TIMEOUT = 5.0

log = structlog.get_logger(__name__)


def store_probe(db: BaseDb) -> Probe:
    """Readiness of ``db``: Redis and, behind it, the durable store."""

    async def probe() -> dict[str, Any]:
        return await health(db)

    return probe


class _Routes:
    """The three handlers over one probe, plus extra work to do before each scrape."""

    __slots__ = ("_before_scrape", "_probe", "_timeout")

    def __init__(
        self, probe: Probe, before_scrape: Callable[[], None] | None, timeout: float
    ) -> None:
        self._probe = probe
        self._before_scrape = before_scrape
        self._timeout = timeout

    async def _report(self) -> dict[str, Any]:
        try:
            report = await asyncio.wait_for(self._probe(), self._timeout)
        except TimeoutError:
            report = {"reachable": False, "error": f"no answer within {self._timeout:g}s"}
        except Exception as exc:  # readiness reports a failure, it never raises one
            report = {"reachable": False, "error": f"{type(exc).__name__}: {exc}"}
        metrics.record_health(report)
        return report

    async def healthz(self, _request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def readyz(self, _request: web.Request) -> web.Response:
        report = await self._report()
        status = 200 if report.get("reachable") else 503
        if status == 503:
            log.warning("not_ready", error=report.get("error"))
        return web.json_response(report, status=status, dumps=_dumps)

    async def metrics(self, _request: web.Request) -> web.Response:
        await self._report()
        if self._before_scrape is not None:
            self._before_scrape()
        response = web.Response(body=metrics.exposition())
        response.headers["Content-Type"] = metrics.CONTENT_TYPE
        return response


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def add_routes(
    app: web.Application,
    probe: Probe,
    *,
    before_scrape: Callable[[], None] | None = None,
    timeout: float = PROBE_TIMEOUT,
) -> None:
    """Serve ``/healthz``, ``/readyz`` and ``/metrics`` from ``app``."""
    routes = _Routes(probe, before_scrape, timeout)
    app.router.add_get("/healthz", routes.healthz)
    app.router.add_get("/readyz", routes.readyz)
    app.router.add_get("/metrics", routes.metrics)


class HealthServer:
    """A small aiohttp server with only the health routes; port 0 picks a free port."""

    __slots__ = ("_app", "_host", "_port", "_runner")

    def __init__(
        self,
        probe: Probe,
        *,
        host: str = "0.0.0.0",
        port: int = 8080,
        before_scrape: Callable[[], None] | None = None,
        timeout: float = PROBE_TIMEOUT,
    ) -> None:
        self._app = web.Application()
        add_routes(self._app, probe, before_scrape=before_scrape, timeout=timeout)
        self._host = host
        self._port = port
        self._runner: web.AppRunner | None = None

    @property
    def port(self) -> int:
        """The bound port (the real one once started)."""
        return self._port

    async def start(self) -> None:
        """Bind and serve in the background."""
        self._runner = web.AppRunner(self._app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self._host, self._port).start()
        for address in self._runner.addresses:
            self._port = int(address[1])
            break
        log.info("health_listening", host=self._host, port=self._port)

    async def stop(self) -> None:
        """Close the listener and its connections."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> HealthServer:
        await self.start()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.stop()


@contextlib.asynccontextmanager
async def serving(
    port: int | None, probe: Probe, *, before_scrape: Callable[[], None] | None = None
) -> AsyncIterator[HealthServer | None]:
    """A started :class:`HealthServer` on ``port`` for the block; None when port is None."""
    if port is None:
        yield None
        return
    async with HealthServer(probe, port=port, before_scrape=before_scrape) as server:
        yield server
