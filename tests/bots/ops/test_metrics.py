"""The metrics helpers: runs timed with their outcome, tool errors, snapshot throughput."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bots.ops import metrics
from core.run.output import ToolExecution


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
