"""Optional OpenTelemetry tracing of runs: a span per run, model call, tool call, store trip.

An :class:`~core.utils.observe.Observer` turns the runtime's events into spans. Spans
nest through OpenTelemetry's context (a contextvar, so each asyncio task keeps its own):
a run's model and tool spans are children of its run span. Off unless
``STATEBOT_OTEL=true``; then the ``opentelemetry`` packages must be installed (else the
process logs ``tracing_unavailable`` and goes on untraced). Where spans go is
OpenTelemetry's own configuration: they use the global tracer provider, which
``opentelemetry-instrument statebot …`` sets up from the ``OTEL_*`` variables.
"""

from __future__ import annotations

import time
from typing import Any

import structlog

from core.utils.observe import Attrs, Observer, add_observer

log = structlog.get_logger(__name__)

try:
    from opentelemetry import context, trace
    from opentelemetry.trace import Status, StatusCode
except ImportError:  # tracing is optional: without the packages it stays off
    trace = None  # type: ignore[assignment]

#: event -> span name
SPAN_NAMES = {
    "run": "statebot.run",
    "model_call": "statebot.model_call",
    "tool_call": "statebot.tool_call",
    "store_call": "statebot.store",
    "lease_wait": "statebot.lease_wait",
}


class Tracing(Observer):
    """Opens a span when an event begins and ends it when the event ends."""

    __slots__ = ("_tracer",)

    def __init__(self, tracer: Any) -> None:
        self._tracer = tracer

    def begin(self, event: str, attrs: Attrs) -> Any:
        """Start the event's span as the current one, so later spans nest under it."""
        span = self._tracer.start_span(SPAN_NAMES.get(event, event), attributes=_attrs(attrs))
        token = context.attach(trace.set_span_in_context(span))
        return span, token

    def end(self, event: str, attrs: Attrs, token: Any, seconds: float, error: bool) -> None:
        """End the span (an event reported after the fact gets one with its real start)."""
        if token is None:
            now = time.time_ns()
            span = self._tracer.start_span(
                SPAN_NAMES.get(event, event),
                attributes=_attrs(attrs),
                start_time=now - int(seconds * 1e9),
            )
            span.end(end_time=now)
            return
        span, attached = token
        context.detach(attached)
        if error:
            span.set_status(Status(StatusCode.ERROR))
        span.end()


def _attrs(attrs: Attrs) -> dict[str, str]:
    return {f"statebot.{key}": value for key, value in attrs.items()}


def available() -> bool:
    """True when the OpenTelemetry API is importable."""
    return trace is not None


def install(enabled: bool, *, tracer_provider: Any = None) -> Tracing | None:
    """Register a :class:`Tracing` observer when ``enabled``; returns it (None when off).

    ``tracer_provider``: the provider to use (tests pass one with an in-memory
    exporter); default: the global one.
    """
    if not enabled:
        return None
    if trace is None:
        log.warning(
            "tracing_unavailable",
            reason="STATEBOT_OTEL is true but opentelemetry is not installed; "
            "pip install opentelemetry-sdk",
        )
        return None
    provider = tracer_provider or trace.get_tracer_provider()
    tracing = Tracing(provider.get_tracer("statebot"))
    add_observer(tracing)
    return tracing
