"""The benchmarks' shared workload: one turn = one tool call that appends a task, two model turns.

The tool takes ``run_context`` unannotated, the one spelling both this project and
Agno inject, so the very same function runs in both frameworks.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from core.models.base import Message, Model, ModelResponse, ToolCall

# benchmarks print tables; keep the runtime's debug lines out of them
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.INFO))


def add_task(run_context, title: str) -> str:  # type: ignore[no-untyped-def]
    """Add a task to the board.

    Args:
        title: The task title.
    """
    tasks = run_context.session_state["tasks"]
    tasks.append({"id": len(tasks) + 1, "title": title, "status": "open"})
    return f"Added task #{len(tasks)}"


def initial_state(n_tasks: int) -> dict[str, Any]:
    """A board that already holds ``n_tasks`` tasks."""
    tasks = [{"id": i + 1, "title": f"task {i + 1}", "status": "open"} for i in range(n_tasks)]
    return {"tasks": tasks, "categories": ["general", "work", "personal"]}


class ToolThenAnswer(Model):
    """A model with no I/O: a tool call after a user message, an answer after a tool result."""

    id = "tool-then-answer"

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        if messages[-1].role == "tool":
            return ModelResponse(content="Done.")
        return ModelResponse(
            tool_calls=(
                ToolCall(id="call_1", name="add_task", arguments='{"title": "write report"}'),
            )
        )


def server_turn(request: dict[str, Any]) -> Any:
    """The same two turns, as a FakeOpenAIServer turn factory."""
    from core.testing import tool_call

    if request["messages"][-1]["role"] == "tool":
        return "Done."
    return tool_call("add_task", title="write report")


async def time_turns(turn: Callable[[int], Awaitable[Any]], n: int, warmup: int = 5) -> list[float]:
    """Seconds per turn for ``n`` turns after ``warmup`` untimed ones."""
    for i in range(warmup):
        await turn(-1 - i)
    samples = []
    for i in range(n):
        start = time.perf_counter()
        await turn(i)
        samples.append(time.perf_counter() - start)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    """(median, p95) in milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered) * 1000, p95 * 1000
