"""Per-turn cost of a run: this runtime on each store, and side by side with Agno.

Run (Agno side by side needs the benchmark's own environment, see bench/README.md):

    bench/.venv-agno/bin/python -m bench.turn_overhead
    .venv/bin/python -m bench.turn_overhead --no-agno

Part 1 times this runtime alone with an in-process model (no HTTP), so the numbers
are the runtime's own overhead, and counts Redis round trips per turn. Part 1b does the
same for a turn that changes ONE SMALL key of a large state (10 vs 10,000 keys, 10 vs
10,000 list items), the two sizes taking turns: what a turn costs when it touches
little of what is stored.
Part 2 runs this runtime and Agno on the same workload through the real ``openai``
client and one local OpenAI-compatible server, and reports the ratio per store.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from bench.workload import ToolThenAnswer, add_task, initial_state, server_turn, summary, time_turns
from core.agent import Agent
from core.db.base import BaseDb
from core.db.in_memory import InMemoryDb
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.models.base import Message, Model, ModelResponse, ToolCall
from core.tools import Function

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")


def add_task_keyed(run_context, title: str) -> str:  # type: ignore[no-untyped-def]
    """Add a task stored under its own top-level key.

    Args:
        title: The task title.
    """
    state = run_context.session_state
    state["next_id"] = state.get("next_id", 1) + 1
    state[f"task:{state['next_id']}"] = {"title": title, "status": "open"}
    return "Added."


def keyed_state(n_tasks: int) -> dict[str, Any]:
    """The same board with one top-level key per task."""
    state: dict[str, Any] = {
        f"task:{i}": {"title": f"task {i}", "status": "open"} for i in range(1, n_tasks + 1)
    }
    state["next_id"] = n_tasks
    return state


def bump(run_context) -> str:  # type: ignore[no-untyped-def]
    """Count one more visit (changes one small key).

    Args: none.
    """
    state = run_context.session_state
    state["visits"] = state.get("visits", 0) + 1
    return "Counted."


def big_keys_state(n: int) -> dict[str, Any]:
    """``n`` top-level keys, each a small task."""
    return {f"task:{i}": {"title": f"task {i}", "status": "open"} for i in range(n)}


def big_list_state(n: int) -> dict[str, Any]:
    """One list of ``n`` tasks."""
    return {"tasks": [{"id": i, "title": f"task {i}", "status": "open"} for i in range(n)]}


class BumpThenAnswer(Model):
    """The in-process model of part 1b: a ``bump`` call, then an answer."""

    id = "bump-then-answer"

    async def ainvoke(self, messages: list[Message], tools: list[dict[str, Any]]) -> ModelResponse:
        if messages[-1].role == "tool":
            return ModelResponse(content="Done.")
        return ModelResponse(tool_calls=(ToolCall(id="call_1", name="bump", arguments="{}"),))


def run_once(agent: Any, session_id: str, _i: int) -> Awaitable[Any]:
    """One turn of the workload on one agent (this project's or Agno's)."""
    return agent.arun("add", session_id=session_id)  # type: ignore[no-any-return]


def our_stores(tmp: str) -> dict[str, Callable[[], BaseDb | None]]:
    """Fresh stores by name (None: an Agent without db)."""
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    return {
        "no db": lambda: None,
        "InMemoryDb": InMemoryDb,
        "SqliteDb": lambda: SqliteDb(db_file=f"{tmp}/ours-{uuid.uuid4().hex}.db"),
        "RedisDb": lambda: RedisDb(
            db_url=REDIS_URL,
            key_prefix=prefix,
            snapshot_to=SqliteDb(db_file=f"{tmp}/snap-{uuid.uuid4().hex}.db"),
        ),
    }


async def part1(tmp: str, turns: int, big: int = 10_000) -> None:
    """This runtime alone: per-turn time and Redis round trips, 10 vs ``big`` tasks."""
    print("\n## Runtime overhead per turn (in-process model, no HTTP)\n")
    print("| store | layout | tasks | median ms | p95 ms | Redis round trips/turn |")
    print("|---|---|---:|---:|---:|---:|")
    # the model calls "add_task" in both layouts
    keyed_tool = Function(add_task_keyed, name="add_task")
    layouts = {"one list": (add_task, initial_state), "key per task": (keyed_tool, keyed_state)}
    for name, make in our_stores(tmp).items():
        for layout, (tool, state_of) in layouts.items():
            for n in (10, big):
                db = make()
                agent = Agent(
                    model=ToolThenAnswer(), db=db, tools=[tool], session_state=state_of(n)
                )
                session = f"s-{uuid.uuid4().hex}"
                count = max(20, turns // 4) if n == big else turns
                samples = await time_turns(partial(run_once, agent, session), count)
                trips = "-"
                if isinstance(db, RedisDb):
                    db.round_trips.reset()
                    for _ in range(10):
                        await agent.arun("add", session_id=session)
                    trips = f"{db.round_trips.reset() / 10:.1f}"
                last = await agent.arun("add", session_id=session)
                assert not any(t.error for t in last.tools), "the tool call must succeed"
                median, p95 = summary(samples)
                print(f"| {name} | {layout} | {n:,} | {median:.2f} | {p95:.2f} | {trips} |")
                if db is not None:
                    await db.aclose()


async def part1b(tmp: str, turns: int, big: int = 10_000) -> None:
    """A turn that changes one small key: 10 vs ``big`` keys, 10 vs ``big`` list items.

    The two sizes take turns (one small turn, one big turn, ...), so a load that drifts
    on a shared machine weighs on both alike and their ratio stays readable.
    """
    print("\n## One small key changes per turn (in-process model, no HTTP)\n")
    print("| store | state | size | median ms | p95 ms | vs 10 | Redis round trips/turn |")
    print("|---|---|---:|---:|---:|---:|---:|")
    layouts = {"keys": big_keys_state, "list items": big_list_state}
    tool = Function(bump, name="bump")
    for name, make in our_stores(tmp).items():
        for layout, state_of in layouts.items():
            sizes = (10, big)
            dbs = [make() for _ in sizes]
            agents = [
                Agent(model=BumpThenAnswer(), db=db, tools=[tool], session_state=state_of(n))
                for db, n in zip(dbs, sizes, strict=True)
            ]
            sessions = [f"s-{uuid.uuid4().hex}" for _ in sizes]  # stores may share a prefix
            samples: list[list[float]] = [[] for _ in sizes]
            for i in range(-5, turns):  # 5 untimed turns first
                for agent, session, timed in zip(agents, sessions, samples, strict=True):
                    start = time.perf_counter()
                    await run_once(agent, session, i)
                    if i >= 0:
                        timed.append(time.perf_counter() - start)
            small_median = summary(samples[0])[0]
            for n, db, agent, session, timed in zip(
                sizes, dbs, agents, sessions, samples, strict=True
            ):
                trips = "-"
                if isinstance(db, RedisDb):
                    db.round_trips.reset()
                    for _ in range(20):
                        await agent.arun("add", session_id=session)
                    trips = f"{db.round_trips.reset() / 20:.1f}"
                state = await agent.aget_session_state(session)
                assert state["visits"] == turns + 5 + (20 if trips != "-" else 0)
                median, p95 = summary(timed)
                ratio = f"{median / small_median:.2f}x"  # the goal: within 1.5x
                print(
                    f"| {name} | {layout} | {n:,} | {median:.2f} | {p95:.2f} | {ratio} | {trips} |"
                )
                if db is not None:
                    await db.aclose()


async def part2(tmp: str, turns: int, big: int = 10_000) -> None:
    """The same workload in this runtime and in Agno, through one fake OpenAI server."""
    try:
        import agno  # noqa: F401
    except ImportError:
        print("\n(Agno is not installed in this environment: side-by-side part skipped)")
        return
    from agno.agent import Agent as AgnoAgent
    from agno.db.in_memory import InMemoryDb as AgnoInMemoryDb
    from agno.db.redis import RedisDb as AgnoRedisDb
    from agno.db.sqlite import SqliteDb as AgnoSqliteDb
    from agno.models.openai import OpenAIChat as AgnoOpenAIChat

    from core.models.openai import OpenAIChat
    from core.testing.openai_server import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        server.extend([server_turn] * 100_000)
        import openai

        raw = openai.AsyncOpenAI(base_url=server.base_url, api_key="bench")

        async def http_only(_i: int) -> None:
            # the two model calls of a turn and nothing else: the floor both frameworks share
            msgs: list[Any] = [{"role": "user", "content": "add"}]
            await raw.chat.completions.create(model="m", messages=msgs)
            msgs.append({"role": "tool", "content": "x", "tool_call_id": "c"})
            await raw.chat.completions.create(model="m", messages=msgs)

        floor, _ = summary(await time_turns(http_only, turns))
        prefix = f"bench-{uuid.uuid4().hex[:8]}"
        ours = our_stores(tmp)
        theirs: dict[str, Callable[[], Any]] = {
            "no db": lambda: None,
            "InMemoryDb": AgnoInMemoryDb,
            "SqliteDb": lambda: AgnoSqliteDb(db_file=f"{tmp}/agno-{uuid.uuid4().hex}.db"),
            "RedisDb": lambda: AgnoRedisDb(db_url=REDIS_URL, db_prefix=prefix),
        }
        print("\n## Side by side with Agno (same workload, same local OpenAI-compatible server)\n")
        print(f"Two bare HTTP calls to the server (the shared floor): {floor:.2f} ms median\n")
        print(
            "| store | tasks | statebot ms | Agno ms | statebot overhead ms | Agno overhead ms "
            "| Agno/statebot (overhead) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for store, make_theirs in theirs.items():
            for n in (10, big):
                count = max(20, turns // 4) if n == big else turns
                our_agent = Agent(
                    model=OpenAIChat(base_url=server.base_url, api_key="bench"),
                    db=ours[store](),
                    tools=[add_task],
                    session_state=initial_state(n),
                )
                agno_agent = AgnoAgent(
                    model=AgnoOpenAIChat(id="m", base_url=server.base_url, api_key="bench"),
                    db=make_theirs(),
                    tools=[add_task],
                    session_state=initial_state(n),
                )
                s1, s2 = f"o-{uuid.uuid4().hex}", f"a-{uuid.uuid4().hex}"
                run_ours = partial(run_once, our_agent, s1)
                run_agno = partial(run_once, agno_agent, s2)
                ours_ms, _ = summary(await time_turns(run_ours, count))
                agno_ms, _ = summary(await time_turns(run_agno, count))
                o, a = ours_ms - floor, agno_ms - floor
                ratio = f"{a / o:.1f}x" if o > 0 else "n/a"
                print(
                    f"| {store} | {n:,} | {ours_ms:.2f} | {agno_ms:.2f} | {o:.2f} | {a:.2f} "
                    f"| {ratio} |"
                )
                tasks = len((await our_agent.aget_session_state(s1))["tasks"])
                assert tasks == n + count + 5, "every turn must have added exactly one task"
                await our_agent.db.aclose()
        await raw.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="timed turns per cell")
    parser.add_argument("--no-agno", action="store_true", help="skip the side-by-side part")
    parser.add_argument("--tasks", type=int, default=10_000, help="tasks in the big board")
    parser.add_argument(
        "--only-small-change",
        action="store_true",
        help="part 1b only (and part 2 unless --no-agno)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.only_small_change:
            await part1(tmp, args.turns, args.tasks)
        await part1b(tmp, args.turns, args.tasks)
        if not args.no_agno:
            await part2(tmp, args.turns, args.tasks)


if __name__ == "__main__":
    asyncio.run(main())
