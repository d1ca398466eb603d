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


def bump(run_context) -> str:  # type: ignore[no-untyped-def]
    """Count one more visit (changes one small key).

    Args: none.
    """
    state = run_context.session_state
    state["visits"] = state.get("visits", 0) + 1
    return "Counted."


class BumpThenAnswer(Model):
    """A ``bump`` call, then an answer."""

    id = "bump-then-answer"

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        if messages[-1].role == "tool":
            return ModelResponse(content="Done.")
        return ModelResponse(tool_calls=(ToolCall(id="call_1", name="bump", arguments="{}"),))


def print_ratio_rows(
    store: str, workload: str, names: list[str], wall: list[list[float]], cpu: list[list[float]]
) -> None:
    """One Markdown row per variant: wall median/p95 and CPU median, each against the first."""
    plain, plain_cpu = summary(wall[0])[0], summary(cpu[0])[0]
    for name, timed, used in zip(names, wall, cpu, strict=True):
        median, p95 = summary(timed)
        cpu_ms = summary(used)[0]
        print(
            f"| {store} | {workload} | {name} | {median:.2f} | {p95:.2f} | "
            f"{median / plain:.2f}x | {cpu_ms:.2f} | {cpu_ms / plain_cpu:.2f}x |",
            flush=True,
        )


async def remove_redis_keys(url: str, prefix: str) -> None:
    """Leave nothing of a benchmark in Redis: delete every key containing ``prefix``."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url)
    try:
        async for key in client.scan_iter(match=f"*{prefix}*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()
