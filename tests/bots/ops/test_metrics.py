"""The metrics helpers: runs timed with their outcome, tool errors, snapshot throughput."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from bots.ops import metrics
from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.run.output import ToolExecution
from core.testing import ScriptedModel, tool_call


def _value(name: str, **labels: str) -> float:
    found = metrics.REGISTRY.get_sample_value(name, labels)
    return found or 0.0


async def test_a_failed_command_run_counts_as_error_and_tool_error() -> None:
    """A command run that raises is counted with outcome=error and as a tool error; it re-raises."""
    before = _value("statebot_tool_errors_total", agent="m1")

    async def broken() -> str:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await metrics.timed_run(broken, agent="m1", kind="command")()
    assert _value("statebot_runs_total", agent="m1", kind="command", outcome="error") >= 1
    assert _value("statebot_tool_errors_total", agent="m1") == before + 1


async def test_a_run_returns_its_result_and_is_timed() -> None:
    """A successful run passes its result through and lands in the latency histogram."""

    async def fine() -> str:
        return "done"

    before = _value("statebot_run_seconds_count", agent="m2", kind="message")
    assert await metrics.timed_run(fine, agent="m2", kind="message")() == "done"
    assert _value("statebot_run_seconds_count", agent="m2", kind="message") == before + 1


def test_tool_calls_that_ended_in_error_are_counted() -> None:
    """Only the tool calls flagged as errors in a run's output count as tool errors."""
    before = _value("statebot_tool_errors_total", agent="m3")
    output = SimpleNamespace(
        tools=[
            ToolExecution("c1", "add", {}, "ok"),
            ToolExecution("c2", "add", {}, "Error: boom", error=True),
        ]
    )
    metrics.count_tool_errors(output, agent="m3")
    assert _value("statebot_tool_errors_total", agent="m3") == before + 1


def test_snapshot_throughput_follows_the_running_total() -> None:
    """Each scrape adds only the writes made since the previous one."""
    snapshotter = SimpleNamespace(written=3)
    before = _value("statebot_snapshots_written_total")
    throughput = metrics.SnapshotThroughput(snapshotter)
    throughput()
    snapshotter.written = 5
    throughput()
    throughput()
    assert _value("statebot_snapshots_written_total") == before + 5


def test_health_report_sets_the_store_gauges() -> None:
    """A health report sets store up/down, the dirty backlog and the quarantined count."""
    metrics.record_health({"reachable": True, "dirty": 7, "quarantined": 2})
    assert _value("statebot_store_up") == 1
    assert _value("statebot_dirty_sessions") == 7
    assert _value("statebot_quarantined_sessions") == 2
    metrics.record_health({"reachable": False, "error": "down"})
    assert _value("statebot_store_up") == 0


async def test_a_run_fills_model_tool_lease_and_store_metrics() -> None:
    """A slow model and a failing tool show in the model, tool, lease and store metrics."""

    def explode() -> str:
        """Always fails."""
        raise RuntimeError("boom")

    class SlowModel(ScriptedModel):
        async def ainvoke(self, messages: Any, tools: Any) -> Any:
            await asyncio.sleep(0.06)
            return await super().ainvoke(messages, tools)

    model_before = _value("statebot_model_seconds_count", agent="slowpoke", outcome="ok")
    slow_before = _value("statebot_model_seconds_bucket", agent="slowpoke", outcome="ok", le="0.05")
    errors_before = _value("statebot_tool_calls_total", tool="explode", outcome="error")
    lease_before = _value("statebot_lease_wait_seconds_count", store="InMemoryDb")
    saves_before = _value("statebot_store_seconds_count", op="save")
    agent = Agent(
        id="slowpoke",
        model=SlowModel([tool_call("explode"), "done"]),
        db=InMemoryDb(),
        tools=[explode],
    )
    await agent.arun("hi", session_id="m-run")
    assert (
        _value("statebot_model_seconds_count", agent="slowpoke", outcome="ok") == model_before + 2
    )
    # both calls took longer than the 50 ms bucket
    assert _value("statebot_model_seconds_bucket", agent="slowpoke", outcome="ok", le="0.05") == (
        slow_before
    )
    assert _value("statebot_tool_calls_total", tool="explode", outcome="error") == errors_before + 1
    assert _value("statebot_lease_wait_seconds_count", store="InMemoryDb") == lease_before + 1
    assert _value("statebot_store_seconds_count", op="save") > saves_before
    text = metrics.exposition().decode()
    assert "statebot_model_seconds_bucket" in text and "statebot_lease_wait_seconds" in text


def test_delivery_failures_are_counted_by_platform() -> None:
    """delivery_failed adds one to the platform's delivery failure counter."""
    before = _value("statebot_delivery_failures_total", platform="discord")
    metrics.delivery_failed("discord")
    assert _value("statebot_delivery_failures_total", platform="discord") == before + 1
