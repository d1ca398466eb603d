"""No lost update through the Agent runtime on one shared RedisDb (tasks and processes)."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from core.agent import Agent
from core.db.redis import RedisDb
from core.models.base import Message
from core.models.scripted import ScriptedModel, tool_call

ROOT = Path(__file__).resolve().parents[2]


def append_item(session_state: dict[str, Any], item: str) -> str:
    """Append one item to the shared list."""
    session_state["items"].append(item)
    return f"added {item}"


def appending_agent(db: RedisDb, name: str, runs: int) -> Agent:
    """An agent whose model appends one uniquely named item per run, then answers."""
    counter = itertools.count()

    def turn(messages: list[Message], tools: list[dict[str, Any]]) -> Any:
        if messages and messages[-1].role == "tool":
            return "done"
        asked = next((m.content or "" for m in reversed(messages) if m.role == "user"), "")
        if asked.startswith("item "):  # the run names its item: order becomes visible
            return tool_call("append_item", item=asked.removeprefix("item "))
        return tool_call("append_item", item=f"{name}-{next(counter)}")

    return Agent(
        model=ScriptedModel([turn] * (2 * runs)),
        db=db,
        session_state={"items": []},
        tools=[append_item],
    )


async def test_hundred_runs_from_several_agents_lose_nothing(
    redis_url: str, key_prefix: str
) -> None:
    """100 concurrent runs from 4 Agent instances on one session end with 100 items."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    agents = [appending_agent(db, f"a{n}", 25) for n in range(4)]
    await asyncio.gather(
        *(agent.arun("add one", session_id="team") for agent in agents for _ in range(25))
    )
    record = await db.aload("team")
    await db.aclose()
    assert record is not None
    assert sorted(record.state["items"]) == sorted(f"a{n}-{k}" for n in range(4) for k in range(25))


async def test_hundred_runs_from_two_processes_lose_nothing(
    redis_url: str, key_prefix: str
) -> None:
    """Two OS processes, each running 50 agent runs concurrently, end with 100 items."""
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        from core.db.redis import RedisDb
        from tests.db.test_redis_agents import appending_agent

        async def main(name):
            db = RedisDb(db_url={redis_url!r}, key_prefix={key_prefix!r})
            agent = appending_agent(db, name, 50)
            await asyncio.gather(*(agent.arun("add", session_id="shared") for _ in range(50)))
            await db.aclose()

        asyncio.run(main(sys.argv[1]))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, name], cwd=ROOT) for name in ("p", "q")
    ]
    assert [p.wait(timeout=90) for p in procs] == [0, 0]
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    record = await db.aload("shared")
    await db.aclose()
    assert record is not None
    assert sorted(record.state["items"]) == sorted(f"{w}-{k}" for w in "pq" for k in range(50))


async def test_runs_arriving_in_order_are_applied_in_order(redis_url: str, key_prefix: str) -> None:
    """Runs started one after another (each queued before the next) apply in that order."""
    db = RedisDb(db_url=redis_url, key_prefix=key_prefix)
    agent = appending_agent(db, "m", 10)
    blocker = await db.leases.acquire("ordered", timeout=5)
    runs = []
    for n in range(10):
        runs.append(asyncio.create_task(agent.arun(f"item m-{n}", session_id="ordered")))
        while await db.leases.waiting("ordered") < n + 1:
            await asyncio.sleep(0.005)
    await db.leases.release(blocker)
    await asyncio.gather(*runs)
    record = await db.aload("ordered")
    await db.aclose()
    assert record is not None and record.state["items"] == [f"m-{k}" for k in range(10)]
