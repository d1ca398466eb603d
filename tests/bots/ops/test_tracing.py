"""OpenTelemetry tracing: a run span with model, tool and store child spans, or nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from structlog.testing import capture_logs

from bots.ops import tracing
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from core.utils import observe


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    found = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(found))
    installed = tracing.install(True, tracer_provider=provider)
    assert installed is not None
    yield found
    observe.remove_observer(installed)


def fails() -> str:
    """Always fails."""
    raise RuntimeError("boom")


async def test_a_run_is_one_trace_with_model_tool_and_store_children(
    exporter: InMemorySpanExporter,
) -> None:
    """The run span is the parent of its model, tool, store and lease spans; errors are marked."""
    agent = Agent(
        id="traced",
        model=ScriptedModel([tool_call("fails"), "done"]),
        db=InMemoryDb(),
        tools=[fails],
    )
    await agent.arun("hi", session_id="t1")
    spans = exporter.get_finished_spans()
    (run,) = [s for s in spans if s.name == "statebot.run"]
    assert run.attributes is not None and run.attributes["statebot.owner_id"] == "traced"
    children = [
        s for s in spans if s.parent is not None and s.parent.span_id == run.context.span_id
    ]
    names = [s.name for s in children]
    assert names.count("statebot.model_call") == 2
    assert "statebot.tool_call" in names and "statebot.lease_wait" in names
    assert "statebot.store" in names
    (tool,) = [s for s in children if s.name == "statebot.tool_call"]
    assert tool.status.status_code is StatusCode.ERROR
    assert all(s.context.trace_id == run.context.trace_id for s in spans)


def test_tracing_off_registers_nothing() -> None:
    """STATEBOT_OTEL false: install does nothing and returns None."""
    before = observe._observers
    assert tracing.install(False) is None
    assert observe._observers == before


def test_tracing_on_without_the_packages_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """STATEBOT_OTEL true without opentelemetry: a clear warning, no observer, no crash."""
    monkeypatch.setattr(tracing, "trace", None)
    with capture_logs() as logs:
        assert tracing.install(True) is None
    (warning,) = [e for e in logs if e["event"] == "tracing_unavailable"]
    assert "pip install opentelemetry-sdk" in warning["reason"]
