"""Streaming a run: its text chunks and, with ``stream_events=True``, its lifecycle.

``stream_run`` starts the run as a task and yields what it reports through a queue.
The run's code does not pass a stream around: the task carries it in a context
variable, so whatever runs inside it (the agent, a team's members, workflow steps,
Parallel branches, which copy the context) reports through :func:`observe_run`,
:func:`step_scope` and the loop's tool callback, and reports nothing when no one is
streaming.

The top run's completed (or paused) event is sent only after the run returned, i.e.
after its final save, so a ``RunCompleted`` never announces state that was not
stored; nested runs (members, steps' agents) report theirs when they finish. A run
that raises sends ``RunError`` (``RunCancelled`` when cancelled) and the exception
still reaches the caller: nothing is swallowed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from core.agent.loop import ContentSink, ToolEventSink
from core.run import events as ev
from core.run.output import RunOutput, RunStatus, ToolExecution

if TYPE_CHECKING:  # it imports this module
    from core.agent.owner import SessionOwner

_END = object()


class StepResult(Protocol):
    """What a finished workflow step reports (``core.workflow.types.StepOutput`` is one):
    the workflow layer sits above this module, so the step's type is not imported."""

    @property
    def content(self) -> object:
        """The step's content, sent as the event's ``content``."""


#: (kind, what) -> (event class, Agno event name)
_NAMES: dict[tuple[str, str], tuple[type[ev.RunOutputEvent], str]] = {}
for _kind, _names in (("agent", ev.RunEvent), ("team", ev.TeamRunEvent)):
    _NAMES[(_kind, "started")] = (ev.RunStartedEvent, _names.run_started.value)
    _NAMES[(_kind, "content")] = (ev.RunContentEvent, _names.run_content.value)
    _NAMES[(_kind, "completed")] = (ev.RunCompletedEvent, _names.run_completed.value)
    _NAMES[(_kind, "paused")] = (ev.RunPausedEvent, _names.run_paused.value)
    _NAMES[(_kind, "error")] = (ev.RunErrorEvent, _names.run_error.value)
    _NAMES[(_kind, "cancelled")] = (ev.RunCancelledEvent, _names.run_cancelled.value)
    _NAMES[(_kind, "tool_started")] = (ev.ToolCallStartedEvent, _names.tool_call_started.value)
    _NAMES[(_kind, "tool_completed")] = (
        ev.ToolCallCompletedEvent,
        _names.tool_call_completed.value,
    )
_WF = ev.WorkflowRunEvent
_NAMES[("workflow", "started")] = (ev.WorkflowStartedEvent, _WF.workflow_started.value)
_NAMES[("workflow", "content")] = (ev.RunContentEvent, ev.RunEvent.run_content.value)
_NAMES[("workflow", "completed")] = (ev.WorkflowCompletedEvent, _WF.workflow_completed.value)
_NAMES[("workflow", "paused")] = (ev.RunPausedEvent, _WF.workflow_paused.value)
_NAMES[("workflow", "error")] = (ev.RunErrorEvent, _WF.workflow_error.value)
_NAMES[("workflow", "cancelled")] = (ev.RunCancelledEvent, _WF.workflow_cancelled.value)
_NAMES[("workflow", "step_started")] = (ev.StepStartedEvent, _WF.step_started.value)
_NAMES[("workflow", "step_completed")] = (ev.StepCompletedEvent, _WF.step_completed.value)
_NAMES[("workflow", "step_error")] = (ev.StepErrorEvent, _WF.step_error.value)


@dataclass(frozen=True, slots=True)
class EventSource:
    """Who emits: an agent, team or workflow, on which run, inside which step."""

    kind: str
    id: str
    name: str | None
    run_id: str | None = None
    session_id: str | None = None
    step_name: str | None = None

    @classmethod
    def of(
        cls, owner: SessionOwner, run_id: str | None = None, session_id: str | None = None
    ) -> EventSource:
        """The source for ``owner``: an agent, team or workflow."""
        return cls(
            kind=owner.kind,
            id=owner.id,
            name=owner.name,
            run_id=run_id,
            session_id=session_id,
            step_name=_step.get(),
        )

    def event(self, what: str, **fields: Any) -> ev.RunOutputEvent:
        """The event ``what`` (started, completed, ...) from this source, Agno-named."""
        cls, name = _NAMES.get((self.kind, what)) or _NAMES[("agent", what)]
        prefix = self.kind if self.kind in ("team", "workflow") else "agent"
        ids: dict[str, Any] = {f"{prefix}_id": self.id, f"{prefix}_name": self.name}
        return cls(
            event=name,
            run_id=self.run_id,
            session_id=self.session_id,
            step_name=self.step_name,
            **ids,
            **fields,
        )

    def final(self, output: RunOutput) -> ev.RunOutputEvent:
        """Completed, paused (the confirmation hook), or RunError for a run a check refused.

        The RunError of a refused run (Agno's event) still ends it and carries its output.
        """
        if RunStatus(output.status) is RunStatus.error:
            return self.event("error", content=output.content, run_output=output)
        if RunStatus(output.status) is RunStatus.paused:
            return self.event(
                "paused",
                content=output.content,
                tools=list(output.tools),
                session_state=output.session_state,
                run_output=output,
            )
        return self.event(
            "completed",
            content=output.content,
            session_state=output.session_state,
            metrics=output.metrics,
            run_output=output,
        )

    def failure(self, exc: BaseException) -> ev.RunOutputEvent:
        """RunCancelled for a cancellation, RunError (message and type) for the rest."""
        if isinstance(exc, asyncio.CancelledError):
            return self.event("cancelled", reason="the run was cancelled")
        return self.event("error", content=str(exc), error_type=type(exc).__name__)


_TERMINAL = (ev.RunCompletedEvent, ev.RunErrorEvent, ev.RunCancelledEvent)


class EventStream:
    """Where one streamed run's events go; ``lifecycle`` is ``stream_events``.

    ``executors=False`` (a workflow's ``stream_executor_events=False``): the events of
    agents and teams run inside a workflow are left out, except their completed, error
    and cancelled events, as in Agno.
    """

    __slots__ = ("_put", "executors", "lifecycle", "root")

    def __init__(
        self,
        put: Callable[[ev.RunOutputEvent], None],
        *,
        lifecycle: bool,
        executors: bool = True,
    ) -> None:
        self._put = put
        self.lifecycle = lifecycle
        self.executors = executors
        #: the top run's source, set when it starts
        self.root: EventSource | None = None

    def content(self, chunk: str) -> None:
        """A text chunk from whichever run is producing it."""
        source = _source.get() or self.root
        if source is not None and not self._hidden(source):
            self._put(source.event("content", content=chunk))

    def emit(self, event: ev.RunOutputEvent) -> None:
        """A lifecycle event, sent only when ``stream_events`` was asked for."""
        if not self.lifecycle:
            return
        source = _source.get()
        if source is not None and not isinstance(event, _TERMINAL) and self._hidden(source):
            return
        self._put(event)

    def _hidden(self, source: EventSource) -> bool:
        """Whether ``source`` is an agent or team inside a workflow whose events are off."""
        return not self.executors and source.kind != "workflow"


_stream: ContextVar[EventStream | None] = ContextVar("statebot_event_stream", default=None)
_source: ContextVar[EventSource | None] = ContextVar("statebot_event_source", default=None)
_step: ContextVar[str | None] = ContextVar("statebot_event_step", default=None)


class RunObserver:
    """What a run reports through while it runs (see :func:`observe_run`)."""

    __slots__ = ("_source", "_stream", "output")

    def __init__(self, stream: EventStream | None, source: EventSource | None) -> None:
        self._stream = stream
        self._source = source
        #: the run's output, set by the run before it returns
        self.output: RunOutput | None = None

    @property
    def on_tool(self) -> ToolEventSink | None:
        """The loop's tool-call callback, or None when no one wants tool events."""
        if self._stream is None or not self._stream.lifecycle:
            return None
        return self._tool

    def _tool(self, phase: str, tool: ToolExecution) -> None:
        assert self._stream is not None and self._source is not None
        what = "tool_started" if phase == "started" else "tool_completed"
        content = tool.result if phase == "completed" else None
        self._stream.emit(self._source.event(what, tool=tool, content=content))


@contextlib.asynccontextmanager
async def observe_run(
    owner: SessionOwner, run_id: str, session_id: str
) -> AsyncIterator[RunObserver]:
    """Report one run of ``owner``: started, then (nested runs) completed or error.

    The first run observed in a stream is the top run; the stream itself reports its
    end once the run has been saved.
    """
    stream = _stream.get()
    if stream is None:
        yield RunObserver(None, None)
        return
    source = EventSource.of(owner, run_id, session_id)
    is_root = stream.root is None
    if is_root:
        stream.root = source
    token = _source.set(source)
    observer = RunObserver(stream, source)
    stream.emit(source.event("started", model=owner.model_id))
    try:
        yield observer
    except BaseException as exc:
        if not is_root and isinstance(exc, Exception | asyncio.CancelledError):
            stream.emit(source.failure(exc))
        raise
    else:
        if not is_root and observer.output is not None:
            stream.emit(source.final(observer.output))
    finally:
        _source.reset(token)


@contextlib.asynccontextmanager
async def step_scope(
    workflow: SessionOwner, run_id: str, session_id: str, name: str | None
) -> AsyncIterator[Callable[[StepResult], None]]:
    """Report one workflow step: StepStarted, then StepCompleted (via the callback) or StepError."""
    stream = _stream.get()
    token = _step.set(name)
    source = EventSource.of(workflow, run_id, session_id)
    try:
        if stream is not None:
            stream.emit(source.event("step_started"))

        def completed(output: StepResult) -> None:
            if stream is not None:
                stream.emit(
                    source.event("step_completed", content=output.content, step_output=output)
                )

        try:
            yield completed
        except Exception as exc:
            if stream is not None:
                stream.emit(
                    source.event("step_error", content=str(exc), error_type=type(exc).__name__)
                )
            raise
    finally:
        _step.reset(token)


async def stream_run(
    owner: SessionOwner,
    start: Callable[[ContentSink], Coroutine[Any, Any, RunOutput]],
    *,
    events: bool = False,
) -> AsyncIterator[ev.RunOutputEvent]:
    """Yield the run's events: chunks (and lifecycle with ``events``), then the final one."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    stream = EventStream(queue.put_nowait, lifecycle=events, executors=owner.stream_executor_events)

    async def body() -> RunOutput:
        _stream.set(stream)  # this task's own context: the caller's is untouched
        return await start(stream.content)

    task = asyncio.ensure_future(body())
    task.add_done_callback(lambda _: queue.put_nowait(_END))
    try:
        while (item := await queue.get()) is not _END:
            yield item
        source = stream.root or EventSource.of(owner)
        try:
            output = task.result()
        except (Exception, asyncio.CancelledError) as exc:
            if events:
                yield source.failure(exc)
            raise
        yield source.final(output)
    finally:
        if not task.done():
            task.cancel()
