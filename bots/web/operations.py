"""The operations page: store health, snapshot lag, parked sessions, lease waits.

Health is ``core.governance.sessions.health`` on each store: Redis (the hot store, when there is
one) and the durable database behind it, probed separately so the page says which
one is down. Lease waits are this process's ``statebot_lease_wait_seconds``
histogram (``bots/ops/metrics.py``): mounted in the Slack process they are the bot's
own waits.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bots.ops import metrics
from bots.web.context import console, viewer
from bots.web.render import page
from core.db.base import BaseDb
from core.governance.sessions import health


async def _stores(db: BaseDb) -> list[dict[str, Any]]:
    """One health report per store behind ``db``."""
    durable = db.durable
    if durable is None:
        return [{"name": "database", **await health(db)}]
    hot = await health(db)  # Redis ping, then the durable store's; lag from Redis
    cold = await health(durable)
    if not hot["reachable"] and cold["reachable"]:
        hot["error"] = hot.get("error", "") + " (the database answers: Redis is down)"
    return [{"name": "Redis", **hot}, {"name": "database", **cold}]


def lease_waits() -> dict[str, float]:
    """Count, total seconds and waits over one second, from the lease-wait histogram."""
    out = {"count": 0.0, "seconds": 0.0, "over_1s": 0.0}
    le_1 = 0.0
    for family in metrics.LEASE_WAIT_SECONDS.collect():
        for sample in family.samples:
            if sample.name.endswith("_count"):
                out["count"] += sample.value
            elif sample.name.endswith("_sum"):
                out["seconds"] += sample.value
            elif sample.name.endswith("_bucket") and sample.labels.get("le") == "1.0":
                le_1 += sample.value
    out["over_1s"] = out["count"] - le_1
    return out


async def operations(request: web.Request) -> web.Response:
    """Health, snapshot lag, quarantined sessions (within the viewer's scope), lease waits."""
    who = viewer(request)
    stores = await _stores(console(request).db)
    for store in stores:
        parked = store.get("quarantined_sessions", [])
        store["quarantined_sessions"] = [q for q in parked if who.covers(q["session_id"])]
    return page(request, "operations.html", stores=stores, waits=lease_waits())


def add_routes(app: web.Application) -> None:
    """The operations page."""
    app.router.add_get("/operations", operations, name="operations")
