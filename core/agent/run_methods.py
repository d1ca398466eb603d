"""The public run API every session owner shares (Agno's names and shapes).

``run`` / ``arun`` (``stream=True`` for events), ``print_response`` /
``aprint_response`` and ``continue_run`` / ``acontinue_run``. Each is a thin door into
:mod:`core.agent.runner`, which owns what a run does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypedDict, overload

from core.agent import runner
from core.agent.direct_tool import resume_direct_call
from core.agent.loop import ContentSink
from core.agent.owner import SessionOwner
from core.agent.pause import decisions_of
from core.agent.prompt import run_flags
from core.agent.streaming import stream_run
from core.media import File, Image
from core.run.events import RunContentEvent, RunOutputEvent
from core.run.output import RunOutput
from core.run.run_input import RunMedia
from core.utils.sync import iterate_sync, run_sync


class _RunOptions(TypedDict):
    """The keyword arguments ``run`` and ``arun`` hand on to one run."""

    session_id: str | None
    user_id: str | None
    session_state: Mapping[str, object] | None
    dependencies: Mapping[str, object] | None
    metadata: Mapping[str, object] | None
    images: Sequence[Image] | None
    files: Sequence[File] | None
    add_dependencies_to_context: bool | None
    add_session_state_to_context: bool | None


class RunMethods(SessionOwner):
    """``run`` / ``arun`` / ``print_response`` / ``continue_run`` for a session owner."""

    async def _arun(
        self,
        input: str,
        *,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        on_content: ContentSink | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
    ) -> RunOutput:
        media = RunMedia.of(images, files)  # a file that cannot be read refuses the run here
        body = runner.model_turn(
            self,
            input,
            dependencies=dependencies,
            metadata=metadata,
            on_content=on_content,
            media=media,
        )
        with run_flags(
            add_dependencies_to_context=add_dependencies_to_context,
            add_session_state_to_context=add_session_state_to_context,
        ):
            return await runner.execute(
                self,
                body,
                session_id=session_id,
                user_id=user_id,
                session_state=session_state,
                metadata=metadata,
            )

    @overload
    def arun(
        self,
        input: str,
        *,
        stream: Literal[False] = False,
        stream_events: Literal[False] = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> Coroutine[Any, Any, RunOutput]: ...

    @overload
    def arun(
        self,
        input: str,
        *,
        stream: Literal[True],
        stream_events: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> AsyncIterator[RunOutputEvent]: ...

    @overload
    def arun(
        self,
        input: str,
        *,
        stream: bool,
        stream_events: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> Coroutine[Any, Any, RunOutput] | AsyncIterator[RunOutputEvent]: ...

    def arun(
        self,
        input: str,
        *,
        stream: bool = False,
        stream_events: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> Coroutine[Any, Any, RunOutput] | AsyncIterator[RunOutputEvent]:
        """``await x.arun(...)`` -> RunOutput; with ``stream=True`` an async iterator of events.

        ``images`` / ``files`` (``core.media``): the model sees the images as image
        content and the files' text; a file that cannot be read as text (neither text
        nor PDF) raises ValueError before anything runs. The history keeps references.

        ``stream_events=True`` adds the run's lifecycle events (core.run.events); it
        needs ``stream=True``.
        """
        if stream_events and not stream:
            raise ValueError("stream_events=True needs stream=True (events are streamed)")
        options: _RunOptions = {
            "session_id": session_id,
            "user_id": user_id,
            "session_state": session_state,
            "dependencies": dependencies,
            "metadata": metadata,
            "images": images,
            "files": files,
            "add_dependencies_to_context": add_dependencies_to_context,
            "add_session_state_to_context": add_session_state_to_context,
        }
        if stream:
            events = stream_run(
                self,
                lambda sink: self._arun(input, on_content=sink, **options),
                events=stream_events,
            )
            return _with_run_output(events) if yield_run_output else events
        return self._arun(input, **options)

    @overload
    def run(
        self,
        input: str,
        *,
        stream: Literal[False] = False,
        stream_events: Literal[False] = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> RunOutput: ...

    @overload
    def run(
        self,
        input: str,
        *,
        stream: Literal[True],
        stream_events: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> Iterator[RunOutputEvent]: ...

    @overload
    def run(
        self,
        input: str,
        *,
        stream: bool,
        stream_events: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> RunOutput | Iterator[RunOutputEvent]: ...

    def run(
        self,
        input: str,
        *,
        stream: bool = False,
        stream_events: bool = False,
        session_id: str | None = None,
        user_id: str | None = None,
        session_state: Mapping[str, object] | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
        add_dependencies_to_context: bool | None = None,
        add_session_state_to_context: bool | None = None,
        yield_run_output: bool = False,
    ) -> RunOutput | Iterator[RunOutputEvent]:
        """Sync twin of :meth:`arun`; with ``stream=True`` an iterator of events."""
        if stream_events and not stream:
            raise ValueError("stream_events=True needs stream=True (events are streamed)")
        options: _RunOptions = {
            "session_id": session_id,
            "user_id": user_id,
            "session_state": session_state,
            "dependencies": dependencies,
            "metadata": metadata,
            "images": images,
            "files": files,
            "add_dependencies_to_context": add_dependencies_to_context,
            "add_session_state_to_context": add_session_state_to_context,
        }
        if stream:
            return iterate_sync(
                self.arun(
                    input,
                    stream=True,
                    stream_events=stream_events,
                    yield_run_output=yield_run_output,
                    **options,
                )
            )
        return run_sync(self._arun(input, **options))

    def print_response(self, input: str, *, stream: bool = False, **kwargs: Any) -> RunOutput:
        """Run and print the answer (chunk by chunk with ``stream=True``)."""
        if not stream:
            output = run_sync(self._arun(input, **kwargs))
            print(output.get_content_as_string())
            return output
        final: RunOutput | None = None
        for event in self.run(input, stream=True, **kwargs):
            if event.run_output is not None:
                final = event.run_output
            elif isinstance(event, RunContentEvent):
                print(event.content, end="", flush=True)
        print()
        if final is None:  # stream_run ends with the final event or raises
            raise RuntimeError("the run's stream ended without its final event")
        return final

    async def aprint_response(self, input: str, **kwargs: Any) -> RunOutput:
        """Async twin of :meth:`print_response` (non-streaming)."""
        output = await self._arun(input, **kwargs)
        print(output.get_content_as_string())
        return output

    async def acontinue_run(
        self,
        run_id: str | None = None,
        *,
        run_response: RunOutput | None = None,
        approved: Iterable[str] = (),
        rejected: Iterable[str] = (),
        session_id: str | None = None,
        user_id: str | None = None,
        dependencies: Mapping[str, object] | None = None,
        metadata: Mapping[str, object] | None = None,
        images: Sequence[Image] | None = None,
        files: Sequence[File] | None = None,
    ) -> RunOutput:
        """Resume a run paused for confirmation, from this or any other process.

        Decide every waiting call: by ``approved`` / ``rejected`` (tool call ids or tool
        names), or Agno's way, by setting ``confirmed`` on ``run_response``'s
        ``tools_requiring_confirmation``. Approved calls run (with the usual hooks,
        validation and rollback), rejected ones never do and the model is told; then
        the run goes on. A run that is not paused (already resumed, say by a second
        click) raises RunError and changes nothing.
        """
        if run_response is not None:
            run_id = run_id or run_response.run_id
            session_id = session_id or run_response.session_id
            approved, rejected = decisions_of(run_response, approved, rejected)
        if not run_id:
            raise ValueError("continue_run needs run_id= or run_response=")
        session_id = session_id or self.session_id
        body = runner.resumed_turn(
            self,
            run_id,
            approved=approved,
            rejected=rejected,
            session_id=session_id,
            user_id=user_id,
            dependencies=dependencies,
            metadata=metadata,
            resume_direct=resume_direct_call,
        )
        return await runner.execute(
            self,
            body,
            session_id=session_id,
            user_id=user_id,
            run_id=run_id,
            check=False,
            metadata=metadata,
        )

    def continue_run(self, run_id: str | None = None, **kwargs: Any) -> RunOutput:
        """Sync twin of :meth:`acontinue_run`."""
        return run_sync(self.acontinue_run(run_id, **kwargs))


async def _with_run_output(events: AsyncIterator[RunOutputEvent]) -> AsyncIterator[Any]:
    """Agno's ``yield_run_output=True``: the events, then the run's RunOutput itself."""
    final: RunOutput | None = None
    async for event in events:
        if event.run_output is not None:
            final = event.run_output
        yield event
    if final is not None:
        yield final
