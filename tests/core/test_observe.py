"""The observation seam: observers hear runs, model and tool calls, lease waits, store trips."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.agent import Agent
from core.db.in_memory import InMemoryDb
from core.testing import ScriptedModel, tool_call
from core.utils import observe
from core.utils.observe import Attrs, Observer


class Recorder(Observer):
    """Keeps (event, attrs, error) of every ended event, in order."""

    def __init__(self) -> None:
        self.ended: list[tuple[str, dict[str, str], bool]] = []

    def end(self, event: str, attrs: Attrs, token: Any, seconds: float, error: bool) -> None:
        assert seconds >= 0
        self.ended.append((event, dict(attrs), error))


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    found = Recorder()
    observe.add_observer(found)
    yield found
    observe.remove_observer(found)


def broken() -> str:
    """Always fails."""
    raise RuntimeError("boom")


async def test_a_run_reports_its_model_tool_store_and_lease_events(recorder: Recorder) -> None:
    """One run with a failing tool tells the observer each event, the tool's as an error."""
    agent = Agent(
        id="obs",
        model=ScriptedModel([tool_call("broken"), "done"]),
        db=InMemoryDb(),
        tools=[broken],
    )
    await agent.arun("hi", session_id="s1")
    events = [event for event, _, _ in recorder.ended]
    # the lease wait is reported right after the store call that took the lease
    assert events[:2] == ["store_call", "lease_wait"] and events[-1] == "run"
    assert events.count("model_call") == 2
    assert ("tool_call", {"tool": "broken"}, True) in recorder.ended
    assert ("store_call", {"op": "load"}, False) in recorder.ended
    assert ("store_call", {"op": "save"}, False) in recorder.ended
    assert ("run", {"owner_id": "obs", "kind": "agent"}, False) in recorder.ended


async def test_a_failing_model_call_is_an_error_event(recorder: Recorder) -> None:
    """A model call that raises ends as an error event, and the run as one too."""
    agent = Agent(id="obs2", model=ScriptedModel([ConnectionError("down")]), db=InMemoryDb())
    with pytest.raises(Exception, match="down"):
        await agent.arun("hi", session_id="s1")
    assert ("model_call", {"owner_id": "obs2"}, True) in recorder.ended
    assert recorder.ended[-1] == ("run", {"owner_id": "obs2", "kind": "agent"}, True)


async def test_a_broken_observer_never_breaks_the_run() -> None:
    """An observer that raises is logged and ignored; the run answers as usual."""

    class Broken(Observer):
        def begin(self, event: str, attrs: Attrs) -> Any:
            raise ValueError("observer bug")

    broken_observer = Broken()
    observe.add_observer(broken_observer)
    try:
        agent = Agent(model=ScriptedModel(["fine"]), db=InMemoryDb())
        assert (await agent.arun("hi")).content == "fine"
    finally:
        observe.remove_observer(broken_observer)


def test_without_observers_observe_hands_out_one_inert_object() -> None:
    """With nobody registered, observe() allocates nothing: the same shared no-op each time."""
    saved = observe._observers
    observe._observers = ()
    try:
        first = observe.observe("model_call", owner_id="a")
        with first as inside:
            inside.error = True
        assert observe.observe("tool_call", tool="b") is first
        assert inside.error is False
    finally:
        observe._observers = saved


def test_adding_an_observer_twice_registers_it_once(recorder: Recorder) -> None:
    """add_observer is idempotent; remove_observer takes it out."""
    observe.add_observer(recorder)
    observe.record("lease_wait", 0.25, store="X")
    assert recorder.ended == [("lease_wait", {"store": "X"}, False)]
