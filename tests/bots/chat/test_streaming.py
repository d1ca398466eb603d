"""bots.chat.streaming: the throttle, the paged stream over an editor, the event runner."""

from __future__ import annotations

from typing import Any

from bots.chat.streaming import PagedStream, Throttle, stream_answer
from core.agent import Agent
from core.testing import ScriptedModel, tool_call
from core.tools import tool


class Clock:
    """A clock set by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Editor:
    """A MessageEditor recording every call, messages kept by index."""

    def __init__(self, limit: int = 20) -> None:
        self.limit = limit
        self.messages: list[str | None] = []
        self.calls: list[tuple[str, Any, str]] = []
        self.statuses: list[bool] = []

    async def post(self, text: str) -> int:
        self.messages.append(text)
        self.calls.append(("post", len(self.messages) - 1, text))
        return len(self.messages) - 1

    async def edit(self, handle: Any, text: str) -> None:
        self.messages[handle] = text
        self.calls.append(("edit", handle, text))

    async def delete(self, handle: Any) -> None:
        self.messages[handle] = None
        self.calls.append(("delete", handle, ""))

    async def status(self, running: bool) -> None:
        self.statuses.append(running)


def test_throttle_lets_one_update_through_per_interval() -> None:
    """The first update passes; the next only once the interval has gone by."""
    clock = Clock()
    throttle = Throttle(1.0, clock)
    assert throttle.ready()
    clock.now = 0.99
    assert not throttle.ready()
    clock.now = 1.0
    assert throttle.ready()
    clock.now = 1.5
    assert not throttle.ready()


async def test_paged_stream_posts_then_edits_within_the_throttle() -> None:
    """Text is posted once, edited at most once per interval, and finishes unthrottled."""
    clock, editor = Clock(), Editor(limit=100)
    stream = PagedStream(editor, Throttle(1.0, clock))
    await stream.text("Hello")
    await stream.text("Hello there")  # too soon: not shown
    clock.now = 1.0
    await stream.text("Hello there, friend")
    assert await stream.finish("Hello there, friend.")
    assert editor.calls == [
        ("post", 0, "Hello"),
        ("edit", 0, "Hello there, friend"),
        ("edit", 0, "Hello there, friend."),
    ]


async def test_paged_stream_continues_in_a_new_message_past_the_limit() -> None:
    """Text longer than the limit continues in a second message, cut by chunk_text."""
    editor = Editor(limit=20)
    stream = PagedStream(editor, Throttle(0.0, Clock()))
    await stream.text("alpha beta")
    await stream.text("alpha beta gamma delta epsilon")
    assert await stream.finish("alpha beta gamma delta epsilon zeta")
    assert all(m is not None and len(m) <= 20 for m in editor.messages)
    assert " ".join(m for m in editor.messages if m) == "alpha beta gamma delta epsilon zeta"
    assert [c[0] for c in editor.calls][:1] == ["post"] and len(editor.messages) == 2


async def test_paged_stream_deletes_parts_a_shorter_final_text_does_not_need() -> None:
    """A final text shorter than what was streamed (an error reply) leaves no stale part."""
    editor = Editor(limit=20)
    stream = PagedStream(editor, Throttle(0.0, Clock()))
    await stream.text("alpha beta gamma delta epsilon")
    assert await stream.finish("Sorry.")
    assert [m for m in editor.messages if m is not None] == ["Sorry."]


async def test_finish_without_anything_streamed_leaves_the_reply_to_the_caller() -> None:
    """No text before the end (a tool pause, an error): finish posts nothing, says False."""
    editor = Editor()
    stream = PagedStream(editor, Throttle(1.0, Clock()))
    await stream.text("   ")
    assert not await stream.finish("Done.")
    assert editor.calls == []


@tool
def add_item(session_state: dict[str, Any], item: str) -> str:
    """Add an item."""
    session_state.setdefault("items", []).append(item)
    return "ok"


class Sink:
    """A StreamSink recording what it is told."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.tools: list[tuple[str, bool]] = []

    async def text(self, so_far: str) -> None:
        self.texts.append(so_far)

    async def tool(self, name: str, running: bool) -> None:
        self.tools.append((name, running))


async def test_stream_answer_reports_tools_and_text_and_returns_the_output() -> None:
    """Tool calls start and end around the run; the text grows; the output is the run's."""
    agent = Agent(
        model=ScriptedModel([tool_call("add_item", item="milk"), "Added milk."]),
        tools=[add_item],
    )
    sink = Sink()
    output = await stream_answer(agent, "add milk", sink, session_id="s1", user_id="u1")
    assert sink.tools == [("add_item", True), ("add_item", False)]
    assert sink.texts[-1] == "Added milk."
    assert output.content == "Added milk."
    assert output.session_state["items"] == ["milk"]
