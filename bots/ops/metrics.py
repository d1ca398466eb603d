"""Every Prometheus metric the bots export, defined once, and the helpers that record them.

Runs are timed around the service's run callables (the runtime in ``core`` stays free
of ``bots``); what happens inside a run — model calls, tool calls, lease waits, store
round trips — reaches :class:`RuntimeMetrics` through ``core.utils.observe``, registered
when this module is imported (every bot process imports it). Snapshot lag is read from
the store's health report at scrape time, so ``/metrics`` always shows the current
backlog, not a stale one.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from core.run.output import RunOutput
from core.utils.observe import Attrs, Observer, add_observer

T = TypeVar("T")

#: one registry for the process; not the client's global one, so nothing else leaks in
REGISTRY = CollectorRegistry()
CONTENT_TYPE = CONTENT_TYPE_LATEST

RUNS = Counter(
    "statebot_runs",
    "Agent runs started from chat, by kind (message, command, decision) and outcome.",
    ["agent", "kind", "outcome"],
    registry=REGISTRY,
)
RUN_SECONDS = Histogram(
    "statebot_run_seconds",
    "Wall time of one chat run, model and tools included.",
    ["agent", "kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120),
    registry=REGISTRY,
)
TOOL_ERRORS = Counter(
    "statebot_tool_errors",
    "Tool calls that ended in an error, and slash-command runs that raised.",
    ["agent"],
    registry=REGISTRY,
)
DIRTY_SESSIONS = Gauge(
    "statebot_dirty_sessions",
    "Sessions changed in Redis and not yet copied to the durable store (snapshot lag).",
    registry=REGISTRY,
)
QUARANTINED_SESSIONS = Gauge(
    "statebot_quarantined_sessions",
    "Sessions the snapshotter parked after repeated refusals.",
    registry=REGISTRY,
)
STORE_UP = Gauge(
    "statebot_store_up",
    "1 when Redis and the durable store answered the last health probe, else 0.",
    registry=REGISTRY,
)
SNAPSHOTS_WRITTEN = Counter(
    "statebot_snapshots_written",
    "Sessions copied from Redis to the durable store by this process (throughput).",
    registry=REGISTRY,
)
MODEL_SECONDS = Histogram(
    "statebot_model_seconds",
    "Wall time of one model call (a run makes one per tool round), by outcome.",
    ["agent", "outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
    registry=REGISTRY,
)
TOOL_CALLS = Counter(
    "statebot_tool_calls",
    "Tool calls made by the runtime, by tool and outcome (error: the call's result was an error).",
    ["tool", "outcome"],
    registry=REGISTRY,
)
LEASE_WAIT_SECONDS = Histogram(
    "statebot_lease_wait_seconds",
    "Time a run waited for its session's run lock (another run of the session held it).",
    ["store"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30),
    registry=REGISTRY,
)
STORE_SECONDS = Histogram(
    "statebot_store_seconds",
    "Wall time of one session load or save by a run.",
    ["op"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5),
    registry=REGISTRY,
)
DELIVERY_FAILURES = Counter(
    "statebot_delivery_failures",
    "Replies the chat platform refused or could not take, by platform.",
    ["platform"],
    registry=REGISTRY,
)


class RuntimeMetrics(Observer):
    """Records the runtime's events (``core.utils.observe``) in the histograms above."""

    __slots__ = ()

    def end(self, event: str, attrs: Attrs, token: Any, seconds: float, error: bool) -> None:
        """Observe one finished event; events without a metric are ignored."""
        outcome = "error" if error else "ok"
        if event == "model_call":
            MODEL_SECONDS.labels(agent=attrs["owner_id"], outcome=outcome).observe(seconds)
        elif event == "tool_call":
            TOOL_CALLS.labels(tool=attrs["tool"], outcome=outcome).inc()
        elif event == "lease_wait":
            LEASE_WAIT_SECONDS.labels(store=attrs["store"]).observe(seconds)
        elif event == "store_call":
            STORE_SECONDS.labels(op=attrs["op"]).observe(seconds)


RUNTIME_METRICS = RuntimeMetrics()
add_observer(RUNTIME_METRICS)


def delivery_failed(platform: str) -> None:
    """Count one reply that ``platform`` would not take (called where it is logged)."""
    DELIVERY_FAILURES.labels(platform=platform).inc()


def timed_run(
    run: Callable[[], Awaitable[T]], *, agent: str, kind: str
) -> Callable[[], Awaitable[T]]:
    """``run`` counted and timed: outcome ``ok`` or ``error`` (the exception goes on)."""

    async def observed() -> T:
        started = time.perf_counter()
        outcome = "error"
        try:
            result = await run()
            outcome = "ok"
            return result
        finally:
            RUNS.labels(agent=agent, kind=kind, outcome=outcome).inc()
            RUN_SECONDS.labels(agent=agent, kind=kind).observe(time.perf_counter() - started)
            if outcome == "error" and kind == "command":
                TOOL_ERRORS.labels(agent=agent).inc()

    return observed


def record_health(report: Mapping[str, Any]) -> None:
    """Set the store gauges from a ``core.governance.sessions.health`` report."""
    STORE_UP.set(1 if report.get("reachable") else 0)
    if "dirty" in report:
        DIRTY_SESSIONS.set(report["dirty"])
    if "quarantined" in report:
        QUARANTINED_SESSIONS.set(report["quarantined"])


def count_tool_errors(output: RunOutput, *, agent: str) -> None:
    """Count the tool calls of a run's output that ended in an error."""
    failed = sum(1 for tool in output.tools if tool.error)
    if failed:
        TOOL_ERRORS.labels(agent=agent).inc(failed)


class SnapshotThroughput:
    """Brings ``statebot_snapshots_written`` up to a snapshotter's running total."""

    __slots__ = ("_seen", "_snapshotter")

    def __init__(self, snapshotter: Any) -> None:
        self._snapshotter = snapshotter
        self._seen = 0

    def __call__(self) -> None:
        """Count the writes made since the last call (called at each scrape)."""
        total = int(self._snapshotter.written)
        if total > self._seen:
            SNAPSHOTS_WRITTEN.inc(total - self._seen)
            self._seen = total


def exposition() -> bytes:
    """The registry in Prometheus' text format."""
    return generate_latest(REGISTRY)
