"""Streaming replies: a run's text deltas and tool events, shown as they happen.

``stream_answer`` runs an agent with ``stream=True, stream_events=True``
(core/run/events.py) and feeds a platform-neutral :class:`StreamSink`: the answer so
far (at most once per ``Throttle`` interval, the clock injected) and "a tool is
running". The one sink both adapters use is :class:`PagedStream`: it posts the first
message, edits it as the text grows, continues in a new message when the text passes
the platform limit (``bots.chat.chunking.chunk_text`` decides the cut) and ends with the
final reply text, so what readers see last is exactly the non-streamed reply. Each
adapter implements only :class:`MessageEditor` (post / edit / delete / status).

A sink that has posted nothing (no text before a tool pause, an error, a workflow)
leaves the reply to the adapter's ordinary path.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from bots.chat.chunking import chunk_text
from bots.settings import Settings
from core.agent.agent import Agent
from core.exceptions import RunError
from core.media import File, Image
from core.run.output import RunOutput
from core.team.team import Team

#: Agno's event names for "a chunk of answer text" and "a tool call starts / ends"
CONTENT = {"RunContent": "agent", "TeamRunContent": "team"}
TOOL_STARTED = ("ToolCallStarted", "TeamToolCallStarted")
TOOL_DONE = ("ToolCallCompleted", "TeamToolCallCompleted")


class StreamSink(Protocol):
    """Where a streamed answer goes."""

    async def text(self, so_far: str) -> None:
        """The answer so far (the whole text, not a delta)."""
        ...

    async def tool(self, name: str, running: bool) -> None:
        """A tool call named ``name`` starts (``running``) or ends."""
        ...


class MessageEditor(Protocol):
    """The platform seam of a streamed reply: one conversation place, its messages."""

    limit: int

    async def post(self, text: str) -> Any:
        """Post a new message; return the handle ``edit``/``delete`` take."""
        ...

    async def edit(self, handle: Any, text: str) -> None:
        """Replace the text of a posted message."""
        ...

    async def delete(self, handle: Any) -> None:
        """Remove a posted message (the final text turned out shorter)."""
        ...

    async def status(self, running: bool) -> None:
        """Show (or clear) that the bot is working: assistant status, typing."""
        ...


class Throttle:
    """Lets an update through at most once per ``interval`` seconds of ``clock``."""

    __slots__ = ("_clock", "_interval", "_last")

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._last: float | None = None

    def ready(self) -> bool:
        """True (and the interval restarts) when the last update is old enough."""
        now = self._clock()
        if self._last is not None and now - self._last < self._interval:
            return False
        self._last = now
        return True


@dataclass(frozen=True, slots=True)
class StreamOptions:
    """Whether replies stream, how often a message may be edited, and the clock that paces it."""

    enabled: bool = False
    seconds: float = 1.0
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def from_settings(cls, settings: Settings) -> StreamOptions:
        """STATEBOT_STREAM_REPLIES and STATEBOT_STREAM_SECONDS."""
        return cls(settings.statebot_stream_replies, settings.statebot_stream_seconds)

    def sink(self, editor: MessageEditor) -> PagedStream | None:
        """A paged stream over ``editor``; None when streaming is off."""
        return PagedStream(editor, Throttle(self.seconds, self.clock)) if self.enabled else None


class PagedStream:
    """A :class:`StreamSink` over a :class:`MessageEditor`: post, edit, continue, finish."""

    __slots__ = ("_editor", "_handles", "_shown", "_throttle")

    def __init__(self, editor: MessageEditor, throttle: Throttle) -> None:
        self._editor = editor
        self._throttle = throttle
        self._handles: list[Any] = []
        self._shown: list[str] = []

    @property
    def started(self) -> bool:
        """Whether any message was posted (then :meth:`finish` owns the reply)."""
        return bool(self._handles)

    async def text(self, so_far: str) -> None:
        """Show the text so far, unless the throttle says it is too soon."""
        if so_far.strip() and self._throttle.ready():
            await self._show(so_far)

    async def tool(self, name: str, running: bool) -> None:
        """Tool calls show as the platform's working status."""
        await self._editor.status(running)

    async def finish(self, text: str) -> bool:
        """End with ``text`` (not throttled); False when nothing was streamed at all."""
        if not self._handles:
            return False
        await self._show(text or "Done.")
        return True

    async def _show(self, text: str) -> None:
        parts = chunk_text(text, self._editor.limit) or [text]
        for index, part in enumerate(parts):
            if index < len(self._handles):
                if self._shown[index] != part:
                    await self._editor.edit(self._handles[index], part)
                    self._shown[index] = part
            else:
                self._handles.append(await self._editor.post(part))
                self._shown.append(part)
        while len(self._handles) > len(parts):  # the final text is shorter than the stream
            await self._editor.delete(self._handles.pop())
            self._shown.pop()


async def stream_answer(
    agent: Agent | Team,
    question: str,
    sink: StreamSink,
    *,
    session_id: str,
    user_id: str,
    metadata: Mapping[str, Any] | None = None,
    images: Sequence[Image] | None = None,
    files: Sequence[File] | None = None,
) -> RunOutput:
    """Run ``agent`` streamed into ``sink``; return the run's RunOutput.

    Only the top run's text is shown (a team's members answer the leader, not the
    reader). Errors propagate after the stream ends, exactly as without streaming.
    """
    wanted = "TeamRunContent" if isinstance(agent, Team) else "RunContent"
    so_far: list[str] = []
    output: RunOutput | None = None
    events = agent.arun(
        question,
        stream=True,
        stream_events=True,
        session_id=session_id,
        user_id=user_id,
        metadata=metadata,
        images=images,
        files=files,
    )
    async for event in events:
        name = str(event.event)
        if name == wanted and isinstance(event.content, str):
            so_far.append(event.content)
            await sink.text("".join(so_far))
        elif name in TOOL_STARTED or name in TOOL_DONE:
            tool = getattr(event, "tool", None)
            await sink.tool(getattr(tool, "tool_name", "") or "", name in TOOL_STARTED)
        if event.is_final:
            output = event.run_output
    if output is None:  # the runtime always ends a stream with its output, or raises
        raise RunError("the streamed run ended without its final output")
    return output


def can_stream(agent: object) -> TypeGuard[Agent | Team]:
    """Agents and teams stream; a workflow answers once (its steps' text is not the reply)."""
    return isinstance(agent, Agent | Team)
