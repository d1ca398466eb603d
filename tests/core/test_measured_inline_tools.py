"""Undeclared sync tools move onto the event loop once measured cheap, and back when not."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.exceptions import ToolRefusedError
from core.models.scripted import ScriptedModel, tool_call
from core.tools import inline, tool
from core.tools.inline import PROMOTE_AFTER


@pytest.fixture(autouse=True)
def _timing_only_where_tested(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounds no call of these tiny tools misses, even on a loaded machine; the tests
    that are about a bound set it again (a preempted call must not fail the others)."""
    monkeypatch.setattr(inline, "FAST_WALL", 1.0)
    monkeypatch.setattr(inline, "BUSY_SHARE", 0.0)
    monkeypatch.setattr(inline, "DEMOTE_WALL", 1.0)


def _busy(seconds: float) -> None:
    """Hold the CPU (not a sleep: a sleeping call would not count as cheap anyway)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class Board:
    """A tool that appends to the state and notes the thread of each call."""

    def __init__(self) -> None:
        self.threads: list[int] = []
        self.work = 0.0  # CPU seconds each call holds
        self.sleep = 0.0  # seconds each call waits
        self.fail: BaseException | None = None

    def add(self, session_state: dict[str, Any], item: str) -> str:
        """Add an item."""
        self.threads.append(threading.get_ident())
        session_state.setdefault("items", []).append(item)
        _busy(self.work)
        if self.sleep:
            time.sleep(self.sleep)
        if self.fail is not None:
            raise self.fail
        return "added"

    def on_loop(self) -> list[bool]:
        """For each call, whether it ran on the test's (the loop's) thread."""
        return [t == threading.get_ident() for t in self.threads]


async def _turns(agent: Agent, board: Board, count: int, start: int = 0) -> None:
    """``count`` runs of one tool call each."""
    assert isinstance(agent.model, ScriptedModel)
    for i in range(count):
        agent.model.extend([tool_call("add", item=f"i{start + i}"), "ok"])
        await agent.arun("go")


def _agent(board: Board, **options: Any) -> Agent:
    function = tool(**options)(board.add) if options else board.add
    return Agent(ScriptedModel([]), db=InMemoryDb(), tools=[function], session_id="s")


async def test_a_cheap_tool_runs_on_the_loop_after_its_measured_calls() -> None:
    board = Board()
    agent = _agent(board)
    await _turns(agent, board, PROMOTE_AFTER + 3)
    assert board.on_loop() == [False] * PROMOTE_AFTER + [True] * 3
    state = await agent.aget_session_state("s")
    assert state == {"items": [f"i{i}" for i in range(PROMOTE_AFTER + 3)]}


async def test_a_cheap_tool_on_a_large_state_is_measured_without_its_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On its worker the call first decodes its private copy of the key it reads (here
    a list of 50,000 nested lists: tens of milliseconds); on the loop it would not, so
    that is not counted against the bound."""
    monkeypatch.setattr(inline, "FAST_WALL", 0.01)
    board = Board()
    agent = Agent(
        ScriptedModel([]),
        db=InMemoryDb(),
        tools=[board.add],
        session_id="s",
        session_state={"items": [[[0]] for _ in range(50_000)]},
    )
    await _turns(agent, board, PROMOTE_AFTER + 2)
    assert board.on_loop()[-2:] == [True, True]
    state = await agent.aget_session_state("s")
    assert state is not None and len(state["items"]) == 50_000 + PROMOTE_AFTER + 2


async def test_a_waiting_tool_stays_on_its_worker_however_short_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call that sleeps (I/O, a lock, a hand-off to the loop) is never counted."""
    monkeypatch.setattr(inline, "BUSY_SHARE", 0.75)
    board = Board()
    board.sleep = 0.0002  # well under the fast bound, but the thread is not on the CPU
    agent = _agent(board)
    await _turns(agent, board, PROMOTE_AFTER + 5)
    assert not any(board.on_loop())


async def test_a_declared_worker_tool_is_never_moved() -> None:
    board = Board()
    agent = _agent(board, inline=False)
    await _turns(agent, board, PROMOTE_AFTER + 5)
    assert not any(board.on_loop())


async def test_a_failure_on_the_worker_starts_the_count_again() -> None:
    board = Board()
    agent = _agent(board)
    await _turns(agent, board, PROMOTE_AFTER - 1)
    board.fail = ValueError("no")
    await _turns(agent, board, 1, start=100)
    board.fail = None
    await _turns(agent, board, PROMOTE_AFTER - 1, start=200)
    assert not any(board.on_loop())
    await _turns(agent, board, 2, start=300)
    assert board.on_loop()[-2:] == [False, True]


async def test_a_promoted_tool_that_holds_the_loop_goes_back_for_good(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inline, "DEMOTE_WALL", 0.005)
    board = Board()
    agent = _agent(board)
    await _turns(agent, board, PROMOTE_AFTER + 1)
    assert board.on_loop()[-1]
    board.work = inline.DEMOTE_WALL * 2
    await _turns(agent, board, 1, start=100)  # on the loop, too long: demoted
    board.work = 0.0
    await _turns(agent, board, PROMOTE_AFTER + 2, start=200)
    assert board.on_loop()[-(PROMOTE_AFTER + 3) :] == [True] + [False] * (PROMOTE_AFTER + 2)
    assert "tool_sent_back_to_worker" in capsys.readouterr().out
    state = await agent.aget_session_state("s")
    assert state is not None and "i100" in state["items"]  # the slow call itself stood


async def test_a_promoted_tool_that_fails_is_undone_and_goes_back() -> None:
    board = Board()
    agent = _agent(board)
    await _turns(agent, board, PROMOTE_AFTER + 1)
    board.fail = RuntimeError("asyncio.run() cannot be called from a running event loop")
    agent.model.extend([tool_call("add", item="bad"), "ok"])  # type: ignore[attr-defined]
    output = await agent.arun("go")
    assert output.tools is not None and output.tools[0].error
    assert board.on_loop()[-1]
    board.fail = None
    await _turns(agent, board, PROMOTE_AFTER + 1, start=200)
    assert not any(board.on_loop()[-(PROMOTE_AFTER + 1) :])
    state = await agent.aget_session_state("s")
    assert state is not None and "bad" not in state["items"]


async def test_a_refusal_is_an_answer_not_a_failure() -> None:
    """A tool that refuses (ToolRefusedError) is still cheap: it stays on the loop."""
    board = Board()
    agent = _agent(board)
    await _turns(agent, board, PROMOTE_AFTER + 1)
    board.fail = ToolRefusedError("that board is full")
    await _turns(agent, board, 1, start=100)
    board.fail = None
    await _turns(agent, board, 2, start=200)
    assert board.on_loop()[-3:] == [True, True, True]


async def test_a_promoted_tool_past_its_timeout_is_undone() -> None:
    board = Board()
    agent = _agent(board, timeout=0.005)
    await _turns(agent, board, PROMOTE_AFTER + 1)
    assert board.on_loop()[-1]
    board.work = 0.015
    agent.model.extend([tool_call("add", item="late"), "ok"])  # type: ignore[attr-defined]
    output = await agent.arun("go")
    assert output.tools is not None and "timed out" in (output.tools[0].result or "")
    state = await agent.aget_session_state("s")
    assert state is not None and "late" not in state["items"]


async def test_calls_at_once_on_workers_count_each() -> None:
    """Workers report at the same time; every cheap call is counted once."""
    board = Board()
    function = board.add
    agent = Agent(ScriptedModel([]), db=InMemoryDb(), tools=[function], session_id="s")
    calls = [tool_call("add", item=f"i{i}") for i in range(PROMOTE_AFTER)]
    agent.model.extend([calls, "ok"])  # type: ignore[attr-defined]
    await agent.arun("go")
    await asyncio.sleep(0)
    agent.model.extend([tool_call("add", item="next"), "ok"])  # type: ignore[attr-defined]
    await agent.arun("go")
    assert board.on_loop()[-1]
