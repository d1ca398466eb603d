"""A Statebot turn saved to Redis against an Agno turn that saves nothing, young and aged.

Run (needs the benchmark's Agno environment, see bench/README.md):

    bench/.venv-agno/bin/python -m bench.turn_vs_agno
    bench/.venv-agno/bin/python -m bench.turn_vs_agno --turns 20 --repeats 1   # quick
    bench/.venv-agno/bin/python -m bench.turn_vs_agno --tools worker   # @tool(inline=False)

Four agents take turns, one turn each in round robin, so a load that drifts on a
shared machine weighs on all alike: Statebot on RedisDb and Agno with no db, each on
*young* sessions (each created by one turn before the timing and then serving five
turns, so never more than six runs old) and on a *long-lived* one (aged first with
``--age`` turns that bump a small counter, so its run history and audit trail are full
while its board starts as large as the young ones'; it grows by one task per turn, to
``tasks`` + 65 by the end). A turn is the shared workload
(a tool call appending a task, two model calls) through the real ``openai`` client
against one local OpenAI-compatible server. Overhead = turn minus two bare HTTP calls
to that server (the floor, timed in the same rotation); CPU is this process's
(``time.process_time``, the server thread included, and taken out again with the
floor's). Long-lived ÷ young is given for the overhead and for the whole turn (the
floor's CPU added back to both), against young sessions whose board starts as large as
the long-lived one's is at mid-timing (so the two differ by age alone), and with
Agno's own overhead ratio beside it. Each repeat builds fresh agents and sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from bench.workload import add_task, bump, initial_state, remove_redis_keys
from core.agent import Agent
from core.db.redis import RedisDb
from core.db.sqlite import SqliteDb
from core.tools import Function

REDIS_URL = os.environ.get("STATEBOT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")

Turn = Callable[[], Awaitable[Any]]

#: turns a young session serves before the next one takes over
YOUNG = 5


def server_turn(request: dict[str, Any]) -> Any:
    """``add`` asks for add_task, ``bump`` for bump; a tool result gets the answer."""
    from core.testing import tool_call

    messages = request["messages"]
    if messages[-1]["role"] == "tool":
        return "Done."
    if messages[-1].get("content") == "bump":
        return tool_call("bump")
    return tool_call("add_task", title="write report")


def _timed(turn: Turn, wall: list[float], cpu: list[float]) -> Turn:
    async def timed() -> None:
        start, start_cpu = time.perf_counter(), time.process_time()
        await turn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)

    return timed


def _ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def one_repeat(
    tmp: str, n: int, turns: int, age: int, server: Any, placement: str
) -> dict[str, float]:
    """Median wall and CPU overhead (ms) per agent, and round trips per Statebot turn."""
    import openai
    from agno.agent import Agent as AgnoAgent
    from agno.models.openai import OpenAIChat as AgnoOpenAIChat

    from core.models.openai import OpenAIChat

    prefix = f"bench-vs-{uuid.uuid4().hex[:8]}:"
    db = RedisDb(
        db_url=REDIS_URL,
        key_prefix=prefix,
        snapshot_to=SqliteDb(db_file=f"{tmp}/snap-{uuid.uuid4().hex}.db"),
    )
    # Statebot's own option (Agno has none), on the same functions: undeclared (measured,
    # the default), declared cheap, or kept on a worker thread
    inline = {"measured": None, "declared": True, "worker": False}[placement]
    tools = [Function(add_task, inline=inline), Function(bump, inline=inline)]
    ours = Agent(
        model=OpenAIChat(base_url=server.base_url, api_key="bench"),
        db=db,
        tools=tools,
        session_state=initial_state(n),
    )
    # young sessions whose board is as large as the long-lived session's at mid-timing
    # (it grows by one task a turn): the two then differ by age alone
    ours_big = Agent(
        model=OpenAIChat(base_url=server.base_url, api_key="bench"),
        db=db,
        tools=tools,
        session_state=initial_state(n + 2 + turns // 2),
    )
    theirs = AgnoAgent(
        model=AgnoOpenAIChat(id="m", base_url=server.base_url, api_key="bench"),
        tools=[add_task, bump],
        session_state=initial_state(n),
    )
    raw = openai.AsyncOpenAI(base_url=server.base_url, api_key="bench")

    async def floor() -> None:  # the two model calls of a turn and nothing else
        msgs: list[Any] = [{"role": "user", "content": "add"}]
        await raw.chat.completions.create(model="m", messages=msgs)
        msgs.append({"role": "tool", "content": "x", "tool_call_id": "c"})
        await raw.chat.completions.create(model="m", messages=msgs)

    sessions = {name: f"{name}-{uuid.uuid4().hex}" for name in ("ol", "al")}
    # a young session serves YOUNG turns, then the next one takes over: all are created
    # (one turn each) before the timing, so none is older than YOUNG + 1 runs
    pools = {
        name: [f"{name}-{uuid.uuid4().hex}" for _ in range(-(-(turns + 5 + BYTE_TURNS) // YOUNG))]
        for name in ("oy", "ob", "ay")
    }
    agents = {"oy": ours, "ol": ours, "ob": ours_big, "ay": theirs, "al": theirs}
    for name in ("ol", "al"):  # age the long-lived sessions without growing their boards
        for _ in range(age):
            await agents[name].arun("bump", session_id=sessions[name])
    for name, pool in pools.items():
        for session in pool:
            await agents[name].arun("add", session_id=session)
    names = ["floor", "oy", "ol", "ob", "ay", "al"]
    wall: dict[str, list[float]] = {k: [] for k in names}
    cpu: dict[str, list[float]] = {k: [] for k in names}
    used = dict.fromkeys(pools, 0)

    def turn_of(name: str) -> Turn:
        if name == "floor":
            return floor
        if name in pools:

            def young() -> Awaitable[Any]:
                session = pools[name][used[name] // YOUNG]
                used[name] += 1
                return agents[name].arun("add", session_id=session)

            return young
        return lambda: agents[name].arun("add", session_id=sessions[name])

    rotation = [(_timed(turn_of(k), wall[k], cpu[k]), turn_of(k)) for k in names]
    for _ in range(5):  # untimed warm-up
        for _, plain in rotation:
            await plain()
    db.round_trips.reset()
    for _ in range(turns):
        for timed, _ in rotation:
            await timed()
    out = {"trips": db.round_trips.reset() / (3 * turns)}
    for name in ("oy", "ol"):  # bytes a Statebot turn sends to Redis, each kind alone
        out[f"{name}_bytes"] = await _bytes_into_redis(turn_of(name), BYTE_TURNS) / BYTE_TURNS
    aged = await ours.aget_session_state(sessions["ol"])
    assert len(aged["tasks"]) == n + turns + 5 + BYTE_TURNS, "one task per turn"
    assert aged["visits"] == age
    young_tasks = [len((await ours.aget_session_state(s))["tasks"]) for s in pools["oy"]]
    assert sum(young_tasks) == len(young_tasks) * (n + 1) + turns + 5 + BYTE_TURNS
    floor_wall, floor_cpu = _ms(wall["floor"]), _ms(cpu["floor"])
    out["floor"], out["floor_cpu"] = floor_wall, floor_cpu
    for k in names[1:]:
        out[f"{k}_wall"] = _ms(wall[k]) - floor_wall
        out[f"{k}_cpu"] = _ms(cpu[k]) - floor_cpu
    await raw.close()
    await db.aclose()
    await remove_redis_keys(REDIS_URL, prefix)
    return out


#: untimed turns after the rotation whose bytes into Redis are counted
BYTE_TURNS = 10


async def _bytes_into_redis(turn: Turn, turns: int) -> float:
    """What Redis received over ``turns`` turns (its ``total_net_input_bytes``; the
    snapshotter's reads of the same sessions included)."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(REDIS_URL)
    try:
        before = (await client.info("stats"))["total_net_input_bytes"]
        for _ in range(turns):
            await turn()
        return float((await client.info("stats"))["total_net_input_bytes"] - before)
    finally:
        await client.aclose()


def _span(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}–{max(values):.2f})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60, help="timed turns per agent")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--age", type=int, default=210, help="turns that age a long-lived session")
    parser.add_argument("--tasks", type=int, nargs="+", default=[10, 10_000])
    parser.add_argument(
        "--tools",
        choices=["measured", "declared", "worker"],
        default="measured",
        help="Statebot's sync tools: undeclared (run on the loop once measured cheap), "
        "declared @tool(inline=True), or @tool(inline=False) (always on a worker thread)",
    )
    args = parser.parse_args()
    from core.testing.openai_server import FakeOpenAIServer

    print(f"load average at start: {os.getloadavg()}; Statebot's tools: {args.tools}")
    print(
        "\n| tasks | session | Statebot RedisDb overhead ms | Agno no db overhead ms "
        "| wall ratio | CPU ratio | Redis round trips/turn |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|")
    aged: dict[int, dict[str, list[float]]] = {}
    with FakeOpenAIServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.extend([server_turn] * 1_000_000)
        for n in args.tasks:
            runs = [
                await one_repeat(tmp, n, args.turns, args.age, server, args.tools)
                for _ in range(args.repeats)
            ]
            for label, ours, theirs in (("young", "oy", "ay"), ("long-lived", "ol", "al")):
                o = statistics.median(r[f"{ours}_wall"] for r in runs)
                a = statistics.median(r[f"{theirs}_wall"] for r in runs)
                walls = [r[f"{ours}_wall"] / r[f"{theirs}_wall"] for r in runs]
                cpus = [r[f"{ours}_cpu"] / r[f"{theirs}_cpu"] for r in runs]
                trips = statistics.median(r["trips"] for r in runs)
                print(
                    f"| {n:,} | {label} | {o:.2f} | {a:.2f} | {_span(walls)} | {_span(cpus)} "
                    f"| {trips:.1f} |",
                    flush=True,
                )
            aged[n] = {
                "CPU": [r["ol_cpu"] / r["oy_cpu"] for r in runs],
                "wall": [r["ol_wall"] / r["oy_wall"] for r in runs],
                # the whole turn, the two model calls' own CPU included
                "whole turn": [
                    (r["ol_cpu"] + r["floor_cpu"]) / (r["oy_cpu"] + r["floor_cpu"]) for r in runs
                ],
                # against young sessions with the long-lived board's size: age alone
                "same board, CPU": [r["ol_cpu"] / r["ob_cpu"] for r in runs],
                # Agno's own, for scale: its long-lived board grows alike
                "Agno CPU": [r["al_cpu"] / r["ay_cpu"] for r in runs],
            }
            floors = ", ".join(f"{r['floor']:.2f}" for r in runs)
            print(f"|  | (floor ms per repeat: {floors}) | | | | | |", flush=True)
            sent = {k: statistics.median(r[f"{k}_bytes"] for r in runs) for k in ("oy", "ol")}
            print(
                f"|  | (bytes into Redis per turn: young {sent['oy']:,.0f}, "
                f"long-lived {sent['ol']:,.0f}) | | | | | |",
                flush=True,
            )
    print(
        "\nStatebot long-lived ÷ young: overhead CPU and wall, whole-turn CPU, overhead CPU "
        "against young sessions with the long-lived board's size; Agno's own for scale:"
    )
    for n, ratios in aged.items():
        print(f"- {n:,} tasks: " + "; ".join(f"{k} {_span(v)}" for k, v in ratios.items()))
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
